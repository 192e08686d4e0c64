#include "lib/recorder/merge.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "collector/raw_format.h"
#include "lib/base/fnv.h"
#include "lib/base/version.h"
#include "lib/recorder/events.h"
#include "lib/recorder/online_answer.h"
#include "lib/recorder/rank_info.h"
#include "lib/recorder/raw_file.h"
#include "lib/recorder/symbolizer.h"

namespace rp::recorder {
namespace {

const char* const kCommKinds[] = {"world", "self",  "dup",       "split",  "create",
                                  "cart",  "graph", "distgraph", "intercomm", "merge",
                                  "split_type", "create_group", "other"};

std::string Join(const std::vector<int>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i == 8) return out + ", ... (" + std::to_string(values.size()) + " in all)";
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out;
}

// Pass 1 over one file: dictionaries, addresses, counts, completeness.
void Scan(RawFile& file, RankInfo& info, Symbolizer& symbolizer) {
  while (const raw::RecordHeader* rec = file.Next()) {
    switch (rec->kind) {
      case raw::kEvent: {
        EventView event;
        if (!ParseEvent(rec, &event)) {
          info.problem = "malformed event at byte " + std::to_string(file.offset());
          return;
        }
        if (event.fixed->site) info.addresses.insert(event.fixed->site);
        info.time_ordered &= event.fixed->t0 >= info.last_time;
        info.last_time = event.fixed->t0;
        ++info.events;
        break;
      }
      case raw::kSample: {
        SampleView sample;
        if (!ParseSample(rec, &sample)) {
          info.problem = "malformed sample at byte " + std::to_string(file.offset());
          return;
        }
        for (uint32_t i = 0; i < sample.fixed->depth; ++i) info.addresses.insert(sample.frames[i]);
        info.time_ordered &= sample.fixed->t >= info.last_time;
        info.last_time = sample.fixed->t;
        ++info.samples;
        break;
      }
      case raw::kComm: {
        CommView comm;
        if (!ParseComm(rec, &comm)) {
          info.problem = "malformed communicator at byte " + std::to_string(file.offset());
          return;
        }
        info.comms.push_back(RawComm{comm.fixed->local_id, comm.fixed->parent, comm.fixed->kind,
                                     {comm.members, comm.members + comm.fixed->size},
                                     {comm.remote, comm.remote + comm.fixed->remote_size}});
        break;
      }
      case raw::kClock:
        if (rec->size >= sizeof(raw::ClockRecord)) {
          info.clocks.push_back(*reinterpret_cast<const raw::ClockRecord*>(rec));
        }
        break;
      case raw::kMaps:
        symbolizer.AddMaps(info.rank, RecordText(rec));
        break;
      case raw::kCmdline:
        info.cmdline = std::string(RecordText(rec));
        break;
      case raw::kOnline: {
        info.online.assign(reinterpret_cast<const char*>(rec), rec->size);
        std::vector<uint64_t> addresses;
        if (!OnlineAddresses(info.online, &addresses)) {
          info.problem = "malformed online answer at byte " + std::to_string(file.offset());
          return;
        }
        for (uint64_t a : addresses) {
          if (a != 0) info.addresses.insert(a);
        }
        break;
      }
      case raw::kCalib:
        if (rec->size >= sizeof(raw::CalibRecord)) {
          const auto* calib = reinterpret_cast<const raw::CalibRecord*>(rec);
          info.time.Add(calib->ticks, calib->ns);
        }
        break;
      case raw::kEnd:
        if (rec->size >= sizeof(raw::EndRecord)) {
          info.has_end = true;
          info.end = *reinterpret_cast<const raw::EndRecord*>(rec);
        }
        break;
    }
  }
  if (info.problem.empty()) info.problem = file.problem();
  info.time.Finish();
}

// Communicators are created collectively, in the same order on every member,
// so (members, remote group, how many such were made before) names one
// communicator on all its ranks. Ids: first appearance, ranks in order.
int64_t UnifyComms(std::vector<RankInfo>& ranks, trace::Writer& writer, Status* status) {
  std::map<std::tuple<std::vector<int32_t>, std::vector<int32_t>, int>, int64_t> ids;
  int64_t next = 0;
  for (RankInfo& info : ranks) {
    std::map<std::pair<std::vector<int32_t>, std::vector<int32_t>>, int> seen;
    for (const RawComm& c : info.comms) {
      const int ordinal = seen[{c.members, c.remote}]++;
      auto [it, inserted] = ids.emplace(std::make_tuple(c.members, c.remote, ordinal), next);
      if (static_cast<size_t>(c.local_id) >= info.comm_global.size()) {
        info.comm_global.resize(c.local_id + 1, -1);
      }
      info.comm_global[c.local_id] = it->second;
      if (!inserted) continue;
      ++next;
      trace::CommRecord record;
      record.set_id(it->second);
      record.set_size(static_cast<int64_t>(c.members.size()));
      record.set_ranks({c.members.begin(), c.members.end()});
      if (!c.remote.empty()) record.set_remote({c.remote.begin(), c.remote.end()});
      if (c.kind >= 0 && c.kind < static_cast<int>(std::size(kCommKinds))) {
        record.set_kind(kCommKinds[c.kind]);
      }
      if (c.parent >= 0 && static_cast<size_t>(c.parent) < info.comm_global.size() &&
          info.comm_global[c.parent] >= 0) {
        record.set_parent(info.comm_global[c.parent]);
      }
      if (status->ok()) *status = writer.Write(record);
    }
  }
  return next;
}

bool IsCollector(const std::string& module) {
  const std::string name = "librpcollect.so";
  return module.size() >= name.size() && module.compare(module.size() - name.size(), name.size(), name) == 0 &&
         (module.size() == name.size() || module[module.size() - name.size() - 1] == '/');
}

// Gives every distinct (module, address, inline level) a site id, in
// (module path, address, level) order, and writes the site records. An
// event's site is level 0 (the innermost); a sample frame expands to all
// levels, innermost first.
int64_t WriteSites(std::vector<RankInfo>& ranks, Symbolizer& symbolizer, trace::Writer& writer,
                   std::vector<trace::SiteRecord>* written, Status* status) {
  std::map<std::pair<std::string, uint64_t>, Location> by_name;
  std::vector<std::vector<std::pair<uint64_t, Location>>> located(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (uint64_t address : ranks[i].addresses) {
      const Location loc = symbolizer.Locate(ranks[i].rank, address);
      const std::string module = loc.module >= 0 ? symbolizer.ModulePath(loc.module) : "";
      // Samples taken in the collector's sleep wrappers: the application's
      // frames start below them.
      if (IsCollector(module)) continue;
      by_name.emplace(std::make_pair(module, loc.vaddr), loc);
      located[i].emplace_back(address, loc);
    }
  }
  std::map<std::pair<int32_t, uint64_t>, std::pair<int64_t, int64_t>> ids_of;  // first id, levels
  int64_t next = 0;
  for (const auto& [key, loc] : by_name) {
    const std::vector<Symbol>& frames = symbolizer.Symbolize(loc);
    ids_of[{loc.module, loc.vaddr}] = {next, static_cast<int64_t>(frames.size())};
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(loc.vaddr));
    for (const Symbol& symbol : frames) {
      trace::SiteRecord site;
      site.set_id(next++);
      if (!symbol.function.empty()) site.set_fn(symbol.function);
      if (!symbol.file.empty()) site.set_file(symbol.file);
      if (symbol.line > 0) site.set_line(symbol.line);
      if (!key.first.empty()) site.set_module(key.first);
      site.set_addr(hex);
      if (status->ok()) *status = writer.Write(site);
      written->push_back(std::move(site));
    }
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (const auto& [address, loc] : located[i]) {
      ranks[i].site_of[address] = ids_of[{loc.module, loc.vaddr}];
    }
    ranks[i].addresses.clear();
  }
  return next;
}

void ArgvFromCmdline(const std::string& cmdline, trace::HeaderRecord* header) {
  std::vector<std::string> argv;
  size_t start = 0;
  while (start < cmdline.size()) {
    size_t end = cmdline.find('\0', start);
    if (end == std::string::npos) end = cmdline.size();
    argv.push_back(cmdline.substr(start, end - start));
    start = end + 1;
  }
  if (!argv.empty()) header->set_app(argv[0]);
  header->set_argv(argv);
}

// Ranks of one host and boot read one time-stamp counter and one
// CLOCK_MONOTONIC: their ticks converted through one map (their lowest
// rank's) keep their times exactly comparable, where each rank's own
// calibration pairs, each read with some noise (a rank descheduled between
// its two reads), could put a receive before its send. A rank whose pairs
// lie more than 1 us from that map, most of them (counters not in step),
// keeps its own.
void ShareTickMaps(std::vector<RankInfo>& ranks) {
  constexpr int64_t kTolerance = 1000;
  std::map<std::pair<std::string, std::string>, const RankInfo*> lowest;
  for (const RankInfo& info : ranks) {  // by rank
    if (info.boot_id().empty() || !info.time.ticks() || !info.time.usable()) continue;
    lowest.emplace(std::make_pair(info.host(), info.boot_id()), &info);
  }
  for (RankInfo& info : ranks) {
    auto it = lowest.find({info.host(), info.boot_id()});
    if (it == lowest.end() || it->second == &info || !info.time.ticks()) continue;
    if (info.time.MedianDistance(it->second->time) <= kTolerance) info.time = it->second->time;
  }
}

// Pass 1 over every file: what each rank holds, and its problems.
std::vector<RankInfo> ReadRanks(const std::vector<std::pair<int, std::string>>& files, Symbolizer& symbolizer,
                                MergeReport* report) {
  std::vector<RankInfo> ranks;
  for (const auto& [rank, path] : files) {
    auto file = RawFile::Open(path);
    if (!file.ok()) {
      report->problems.push_back(file.status().message());
      continue;
    }
    RankInfo info;
    info.rank = rank;
    info.path = path;
    info.header = (*file)->header();
    info.time.SetTicks(info.header.timer == raw::kTimerTicks);
    if (info.header.rank != rank) {
      report->problems.push_back(path + ": file header says rank " + std::to_string(info.header.rank));
      continue;
    }
    Scan(**file, info, symbolizer);
    ranks.push_back(std::move(info));
  }
  // A rank cut before its second calibration pair borrows the tick rate of
  // another rank on its host, which reads the same counter.
  for (RankInfo& info : ranks) {
    if (info.time.usable()) continue;
    for (const RankInfo& other : ranks) {
      if (other.time.usable() && other.time.ticks() &&
          std::strncmp(other.header.host, info.header.host, sizeof info.header.host) == 0) {
        info.time.Borrow(other.time.Rate());
        break;
      }
    }
    if (!info.time.usable() && info.events + info.samples > 0) {
      info.problem += std::string(info.problem.empty() ? "" : "; ") +
                      "no clock calibration: event times are left in CPU ticks";
    }
  }
  ShareTickMaps(ranks);
  return ranks;
}

// What makes the trace incomplete: missing ranks, damaged files, ranks
// that did not reach MPI_Finalize.
void ReportGaps(const std::vector<RankInfo>& ranks, int world, MergeReport* report) {
  std::vector<int> missing;
  std::set<int> present;
  for (const RankInfo& info : ranks) present.insert(info.rank);
  for (int r = 0; r < world; ++r) {
    if (!present.count(r)) missing.push_back(r);
  }
  if (!missing.empty()) {
    report->problems.push_back("no data for rank(s) " + Join(missing) + " of " + std::to_string(world) +
                               " (their files are missing or unreadable)");
  }
  for (const RankInfo& info : ranks) {
    if (!info.problem.empty()) {
      report->problems.push_back(info.path + ": " + info.problem + "; kept what came before");
    }
    if (!info.has_end) {
      report->problems.push_back("rank " + std::to_string(info.rank) +
                                 " stopped without flushing its last buffer (killed?): " +
                                 std::to_string(info.events) + " events kept");
    } else if (!info.end.finalized) {
      report->problems.push_back("rank " + std::to_string(info.rank) +
                                 " ended without MPI_Finalize (exit or fatal signal): " +
                                 std::to_string(info.events) + " events kept");
    }
  }
}

// The run's identity: its ranks' hosts, boots and process ids, hashed
// (FNV-1a), so that files of two runs of one command differ.
std::string RunIdentity(const std::vector<RankInfo>& ranks) {
  uint64_t hash = kFnvOffset;
  auto add = [&](const void* bytes, size_t n) { hash = Fnv1a(hash, bytes, n); };
  for (const RankInfo& info : ranks) {
    add(&info.rank, sizeof info.rank);
    add(&info.header.pid, sizeof info.header.pid);
    add(info.header.host, strnlen(info.header.host, sizeof info.header.host));
    add(info.header.boot_id, strnlen(info.header.boot_id, sizeof info.header.boot_id));
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

trace::HeaderRecord MakeHeader(const std::vector<RankInfo>& ranks, int world, const MergeOptions& options) {
  trace::HeaderRecord header;
  header.set_schema(std::string(trace::kSchemaVersion));
  header.set_producer({std::string("rp-record ") + kVersion});
  if (!options.argv.empty()) {
    header.set_argv(options.argv);
    for (const RankInfo& info : ranks) {
      if (!info.cmdline.empty()) {
        header.set_app(info.cmdline.substr(0, info.cmdline.find('\0')));
        break;
      }
    }
  } else {
    for (const RankInfo& info : ranks) {
      if (!info.cmdline.empty()) {
        ArgvFromCmdline(info.cmdline, &header);
        break;
      }
    }
  }
  header.set_ranks(world);
  header.set_clock("local");
  // Threads of an MPI_THREAD_MULTIPLE rank can finish calls out of start
  // order; the stream is then merged in file order and not marked sorted.
  if (std::all_of(ranks.begin(), ranks.end(), [](const RankInfo& r) { return r.time_ordered; })) {
    header.set_order("time");
  }
  header.set_run(RunIdentity(ranks));
  return header;
}

// The events into options.split part files of contiguous rank groups with
// about equal records each; their part records end the index (`writer`).
Expected<EventCounts> WriteSplitEvents(std::vector<RankInfo>& ranks, int world, const trace::HeaderRecord& header,
                                       const MergeOptions& options, trace::Writer& index, int* parts) {
  std::vector<int64_t> weights(world, 1);  // a rank without records still spreads
  for (const RankInfo& info : ranks) {
    if (info.rank >= 0 && info.rank < world) weights[info.rank] += info.events + info.samples;
  }
  std::string line;
  trace::Encode(header, &line);
  line.pop_back();  // its newline
  RP_ASSIGN_OR_RETURN(std::unique_ptr<trace::SplitWriter> split,
                      trace::SplitWriter::Open(options.split_index, trace::BalancedGroups(weights, options.split),
                                               options.open_part, line));
  RP_ASSIGN_OR_RETURN(const EventCounts counts,
                      WriteEvents(ranks, [&](int64_t rank, int64_t time) { return split->For(rank, time); }));
  RP_RETURN_IF_ERROR(split->Finish(index));
  *parts = static_cast<int>(split->parts());
  return counts;
}

// Every rank of the world gets a rank record; one without data is marked
// incomplete with no events.
Status WriteRankRecords(const std::vector<RankInfo>& ranks, int world, trace::Writer& writer) {
  for (int r = 0, next = 0; r < world; ++r) {
    trace::RankRecord rank;
    rank.set_rank(r);
    if (next < static_cast<int>(ranks.size()) && ranks[next].rank == r) {
      const RankInfo& info = ranks[next++];
      rank.set_host(info.host());
      if (!info.boot_id().empty()) rank.set_boot(info.boot_id());
      rank.set_pid(info.header.pid);
      rank.set_events(info.events);
      rank.set_samples(info.samples);
      if (info.has_end && info.end.overhead_outside > 0) rank.set_rp(info.time.Duration(info.end.overhead_outside));
      rank.set_complete(info.has_end && info.end.finalized && info.problem.empty());
    } else {
      rank.set_events(0);
      rank.set_samples(0);
      rank.set_complete(false);
    }
    RP_RETURN_IF_ERROR(writer.Write(rank));
  }
  return OkStatus();
}

// The collector's clock offset measurements, by rank.
Status WriteClockRecords(const std::vector<RankInfo>& ranks, trace::Writer& writer) {
  for (const RankInfo& info : ranks) {
    for (const raw::ClockRecord& c : info.clocks) {
      trace::ClockRecord clock;
      clock.set_rank(info.rank);
      clock.set_method("pingpong");
      clock.set_when(c.when == 0 ? "init" : "finalize");
      clock.set_t(c.t);
      clock.set_offset(c.offset);
      clock.set_rtt(c.rtt);
      RP_RETURN_IF_ERROR(writer.Write(clock));
    }
  }
  return OkStatus();
}

}  // namespace

std::vector<std::pair<int, std::string>> RankFiles(const std::string& dir) {
  std::vector<std::pair<int, std::string>> files;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return files;
  while (dirent* entry = ::readdir(d)) {
    int rank = -1;
    char tail[8] = {};
    if (std::sscanf(entry->d_name, "rank-%d.rpra%1s", &rank, tail) == 2 &&
        std::strcmp(tail, "w") == 0 && rank >= 0 &&
        std::string(entry->d_name) == "rank-" + std::to_string(rank) + ".rpraw") {
      files.emplace_back(rank, dir + "/" + entry->d_name);
    }
  }
  ::closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

Expected<MergeReport> Merge(const std::string& dir, const MergeOptions& options, trace::Writer& writer) {
  MergeReport report;
  if (DIR* d = ::opendir(dir.c_str())) {
    ::closedir(d);
  } else {
    return InputError(dir + ": cannot open directory: " + std::strerror(errno));
  }
  const auto files = RankFiles(dir);
  if (files.empty()) {
    return InputError(dir + ": no collector files (rank-<R>.rpraw); was librpcollect.so preloaded "
                      "into the ranks and RP_DIR set to this directory?");
  }
  Symbolizer symbolizer;
  std::vector<RankInfo> ranks = ReadRanks(files, symbolizer, &report);
  if (ranks.empty()) {
    std::string why;
    for (const std::string& problem : report.problems) why += "\n  " + problem;
    return InputError(dir + ": no readable collector file:" + why);
  }
  int world = 0;
  for (const RankInfo& info : ranks) world = std::max(world, info.header.world_size);
  report.world_size = world;
  ReportGaps(ranks, world, &report);

  const trace::HeaderRecord header = MakeHeader(ranks, world, options);
  RP_RETURN_IF_ERROR(writer.Write(header));
  RP_RETURN_IF_ERROR(WriteRankRecords(ranks, world, writer));
  Status status;
  report.comms = UnifyComms(ranks, writer, &status);
  RP_RETURN_IF_ERROR(status);
  std::vector<trace::SiteRecord> sites;
  report.sites = WriteSites(ranks, symbolizer, writer, &sites, &status);
  RP_RETURN_IF_ERROR(status);
  RP_RETURN_IF_ERROR(WriteClockRecords(ranks, writer));
  if (options.online) {
    // Rank 0's answer; or, when the job ended before MPI_Finalize, the
    // longest of the paths the ranks left (each its own, at its end).
    const RankInfo* answer = nullptr;
    int64_t longest = -1, left = 0;
    for (const RankInfo& info : ranks) {
      bool partial = false;
      int64_t length = 0;
      if (info.online.empty() || !PartialOnline(info.online, &partial, &length)) continue;
      if (!partial) {
        answer = &info;
        break;
      }
      ++left;
      if (length > longest) answer = &info, longest = length;
    }
    if (answer == nullptr) {
      return InputError(dir + ": no online answer (rank 0 writes it at MPI_Finalize: did the job get there, "
                        "with RP_ONLINE=1?)");
    }
    if (longest >= 0) {
      report.problems.push_back("the job ended before MPI_Finalize: the online answer is the longest of the paths " +
                                std::to_string(left) + " of " + std::to_string(world) +
                                " ranks had when they ended (rank " + std::to_string(answer->rank) + "'s)");
    }
    RP_ASSIGN_OR_RETURN(const OnlineCounts online,
                        WriteOnlineAnswer(answer->online, world, answer->site_of, sites, writer));
    if (longest < 0 && online.ranks < world) {
      report.problems.push_back("the online answer covers " + std::to_string(online.ranks) + " of " +
                                std::to_string(world) + " ranks");
    }
    report.online_piggybacks = online.piggybacks;
    report.online_piggyback_bytes = online.piggyback_bytes;
    report.online_skipped_calls = online.skipped_calls;
    return report;
  }
  EventCounts counts;
  if (options.split > 1) {
    RP_ASSIGN_OR_RETURN(counts, WriteSplitEvents(ranks, world, header, options, writer, &report.parts));
  } else {
    RP_ASSIGN_OR_RETURN(counts, WriteEvents(ranks, [&](int64_t, int64_t) -> Expected<trace::Writer*> { return &writer; }));
  }
  report.events = counts.events;
  report.samples = counts.samples;
  return report;
}

}  // namespace rp::recorder
