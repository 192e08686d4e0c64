#include "lib/record/merge.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "collector/raw_format.h"
#include "lib/base/version.h"
#include "lib/mpi/functions.h"
#include "lib/record/raw_file.h"
#include "lib/record/symbolizer.h"

namespace rp::record {
namespace {

const char* const kCommKinds[] = {"world", "self",  "dup",       "split",  "create",
                                  "cart",  "graph", "distgraph", "intercomm", "merge",
                                  "split_type", "create_group", "other"};

struct RawComm {
  int32_t local_id;
  int32_t parent;
  int32_t kind;
  std::vector<int32_t> members, remote;
};

// Converts a rank's event times to nanoseconds: identity for ranks that
// recorded nanoseconds; for time-stamp counter ticks, piecewise linear
// through the (ticks, ns) pairs the collector wrote with its buffers.
class TimeMap {
 public:
  void SetTicks(bool ticks) { ticks_ = ticks; }
  void Add(int64_t ticks, int64_t ns) { points_.emplace_back(ticks, ns); }
  void Finish() {
    std::sort(points_.begin(), points_.end());
    points_.erase(std::unique(points_.begin(), points_.end(),
                              [](const auto& a, const auto& b) { return a.first == b.first; }),
                  points_.end());
  }
  bool usable() const { return !ticks_ || points_.size() >= 2; }
  bool ticks() const { return ticks_; }
  // Ns per tick over the whole calibration, 0 when unknown.
  double Rate() const {
    if (points_.size() < 2) return 0;
    return static_cast<double>(points_.back().second - points_.front().second) /
           static_cast<double>(points_.back().first - points_.front().first);
  }
  // A rank with a single pair borrows the rate of another rank on its host,
  // which reads the same counter.
  void Borrow(double rate) {
    if (points_.size() != 1 || rate <= 0) return;
    const auto [t, n] = points_.front();
    points_.emplace_back(t + 1'000'000'000, n + static_cast<int64_t>(std::llround(1e9 * rate)));
  }
  int64_t ToNs(int64_t t) const {
    if (!ticks_ || points_.size() < 2) return t;
    auto after = std::upper_bound(points_.begin(), points_.end(), std::make_pair(t, INT64_MAX));
    if (after == points_.begin()) ++after;
    if (after == points_.end()) --after;
    const auto& [t1, n1] = *after;
    const auto& [t0, n0] = *(after - 1);
    const double slope = static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0);
    return n0 + static_cast<int64_t>(std::llround(static_cast<double>(t - t0) * slope));
  }

 private:
  bool ticks_ = false;
  std::vector<std::pair<int64_t, int64_t>> points_;
};

struct RankInfo {
  int rank = -1;
  std::string path;
  raw::FileHeader header{};
  std::vector<RawComm> comms;
  std::vector<raw::ClockRecord> clocks;
  std::unordered_set<uint64_t> addresses;
  // address -> first site id and number of inline levels
  std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> site_of;
  std::vector<int64_t> comm_global;               // local comm id -> global id
  std::string cmdline;
  TimeMap time;
  bool has_end = false;
  raw::EndRecord end{};
  int64_t events = 0;
  int64_t samples = 0;
  int64_t last_time = INT64_MIN;
  bool time_ordered = true;  // events and samples in time order in the file
  std::string problem;
};

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
                   Status* status) {
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

// Pass 2: one cursor per rank over its events and samples.
struct Cursor {
  RankInfo* info = nullptr;
  std::unique_ptr<RawFile> file;
  std::vector<char> record;  // the pending record's bytes
  int64_t time = 0;
  int64_t seq = 0;
  int64_t order = 0;  // file order, for ties

  bool Advance() {
    while (const raw::RecordHeader* rec = file->Next()) {
      if (rec->kind != raw::kEvent && rec->kind != raw::kSample) continue;
      record.assign(reinterpret_cast<const char*>(rec), reinterpret_cast<const char*>(rec) + rec->size);
      time = info->time.ToNs(rec->kind == raw::kEvent ? reinterpret_cast<const raw::EventFixed*>(rec)->t0
                                                      : reinterpret_cast<const raw::SampleFixed*>(rec)->t);
      ++order;
      return true;
    }
    return false;
  }
  const raw::RecordHeader* head() const {
    return reinterpret_cast<const raw::RecordHeader*>(record.data());
  }
};

void ToMpiRecord(const EventView& e, Cursor& c, trace::MpiRecord* m) {
  const RankInfo& info = *c.info;
  m->Clear();
  m->set_rank(info.rank);
  m->set_seq(c.seq++);
  const uint16_t fn = e.fixed->h.fn;
  m->set_fn(fn < mpi::kFunctionCount ? mpi::kFunctions[fn].name : "MPI_unknown_" + std::to_string(fn));
  m->set_t0(info.time.ToNs(e.fixed->t0));
  m->set_t1(std::max(m->t0, info.time.ToNs(e.fixed->t0 + e.duration())));
  if (e.fixed->site) {
    auto it = info.site_of.find(e.fixed->site);
    if (it != info.site_of.end()) m->set_site(it->second.first);
  }
  auto global_comm = [&](int64_t local) -> int64_t {
    return local >= 0 && static_cast<size_t>(local) < info.comm_global.size() ? info.comm_global[local] : -1;
  };
  auto rank_field = [](int64_t value) { return value >= -2; };  // -3: not a rank of the group
  if (e.has(raw::kComm32) && global_comm(e.fields[raw::kComm32]) >= 0) {
    m->set_comm(global_comm(e.fields[raw::kComm32]));
  }
  if (e.has(raw::kPeer32) && rank_field(e.fields[raw::kPeer32])) m->set_peer(e.fields[raw::kPeer32]);
  if (e.has(raw::kTag32)) m->set_tag(e.fields[raw::kTag32]);
  if (e.has(raw::kBytes64)) m->set_bytes(e.fields[raw::kBytes64]);
  if (e.has(raw::kRpeer32) && rank_field(e.fields[raw::kRpeer32])) m->set_rpeer(e.fields[raw::kRpeer32]);
  if (e.has(raw::kRtag32)) m->set_rtag(e.fields[raw::kRtag32]);
  if (e.has(raw::kRbytes64)) m->set_rbytes(e.fields[raw::kRbytes64]);
  if (e.has(raw::kRoot32) && e.fields[raw::kRoot32] >= 0) m->set_root(e.fields[raw::kRoot32]);
  if (e.has(raw::kOp32)) {
    const int64_t op = e.fields[raw::kOp32];
    m->set_op(op >= 0 && op < static_cast<int64_t>(std::size(raw::kOpNames)) ? raw::kOpNames[op] : "user");
  }
  if (e.has(raw::kReq32)) m->set_req(e.fields[raw::kReq32]);
  if (e.fixed->n_reqs > 0) {
    m->mutable_reqs().assign(e.started, e.started + e.fixed->n_reqs);
  }
  if (e.fixed->n_completed > 0) {
    m->mutable_completed().assign(e.completed, e.completed + e.fixed->n_completed);
  }
  if (e.fixed->n_resolved > 0) {
    std::vector<trace::Completion>& resolved = m->mutable_resolved();
    resolved.clear();
    for (size_t i = 0; i < e.fixed->n_resolved; ++i) {
      const raw::ResolvedEntry r = e.resolved_at(i);
      resolved.push_back(trace::Completion{r.req, r.peer, r.tag, r.bytes});
    }
  }
  if (e.has(raw::kMsg32)) m->set_msg(e.fields[raw::kMsg32]);
  if (e.has(raw::kNewcomm32) && global_comm(e.fields[raw::kNewcomm32]) >= 0) {
    m->set_newcomm(global_comm(e.fields[raw::kNewcomm32]));
  }
  if (e.has(raw::kWin32)) m->set_win(e.fields[raw::kWin32]);
  if (e.has(raw::kFh32)) m->set_fh(e.fields[raw::kFh32]);
  if (e.has(raw::kOffset64)) m->set_offset(e.fields[raw::kOffset64]);
}

void ToSampleRecord(const SampleView& s, const Cursor& c, int64_t weight, trace::SampleRecord* out) {
  out->Clear();
  out->set_rank(c.info->rank);
  out->set_t(c.info->time.ToNs(s.fixed->t));
  std::vector<int64_t>& stack = out->mutable_stack();
  stack.clear();
  for (uint32_t i = 0; i < s.fixed->depth; ++i) {
    auto it = c.info->site_of.find(s.frames[i]);
    if (it == c.info->site_of.end()) continue;
    for (int64_t level = 0; level < it->second.second; ++level) stack.push_back(it->second.first + level);
  }
  if (weight > 0) out->set_weight(weight * (1 + static_cast<int64_t>(s.fixed->overrun)));
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

Expected<MergeReport> Merge(const std::string& dir, const MergeOptions& options,
                            trace::Writer& writer) {
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

  // Pass 1.
  Symbolizer symbolizer;
  std::vector<RankInfo> ranks;
  for (const auto& [rank, path] : files) {
    auto file = RawFile::Open(path);
    if (!file.ok()) {
      report.problems.push_back(file.status().message());
      continue;
    }
    RankInfo info;
    info.rank = rank;
    info.path = path;
    info.header = (*file)->header();
    info.time.SetTicks(info.header.timer == raw::kTimerTicks);
    if (info.header.rank != rank) {
      report.problems.push_back(path + ": file header says rank " + std::to_string(info.header.rank));
      continue;
    }
    Scan(**file, info, symbolizer);
    ranks.push_back(std::move(info));
  }
  if (ranks.empty()) {
    std::string why;
    for (const std::string& problem : report.problems) why += "\n  " + problem;
    return InputError(dir + ": no readable collector file:" + why);
  }

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

  int world = 0;
  for (const RankInfo& info : ranks) world = std::max(world, info.header.world_size);
  report.world_size = world;
  std::vector<int> missing;
  {
    std::set<int> present;
    for (const RankInfo& info : ranks) present.insert(info.rank);
    for (int r = 0; r < world; ++r) {
      if (!present.count(r)) missing.push_back(r);
    }
  }
  if (!missing.empty()) {
    report.problems.push_back("no data for rank(s) " + Join(missing) + " of " +
                              std::to_string(world) + " (their files are missing or unreadable)");
  }
  for (const RankInfo& info : ranks) {
    if (!info.problem.empty()) {
      report.problems.push_back(info.path + ": " + info.problem + "; kept what came before");
    }
    if (!info.has_end) {
      report.problems.push_back("rank " + std::to_string(info.rank) +
                                " stopped without flushing its last buffer (killed?): " +
                                std::to_string(info.events) + " events kept");
    } else if (!info.end.finalized) {
      report.problems.push_back("rank " + std::to_string(info.rank) +
                                " ended without MPI_Finalize (exit or fatal signal): " +
                                std::to_string(info.events) + " events kept");
    }
  }

  // Header and dictionaries.
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
  RP_RETURN_IF_ERROR(writer.Write(header));

  // Every rank of the world gets a rank record; one without data is
  // marked incomplete with no events.
  for (int r = 0, next = 0; r < world; ++r) {
    trace::RankRecord rank;
    rank.set_rank(r);
    if (next < static_cast<int>(ranks.size()) && ranks[next].rank == r) {
      const RankInfo& info = ranks[next++];
      rank.set_host(std::string(info.header.host, strnlen(info.header.host, sizeof info.header.host)));
      rank.set_pid(info.header.pid);
      rank.set_events(info.events);
      rank.set_samples(info.samples);
      rank.set_complete(info.has_end && info.end.finalized && info.problem.empty());
    } else {
      rank.set_events(0);
      rank.set_samples(0);
      rank.set_complete(false);
    }
    RP_RETURN_IF_ERROR(writer.Write(rank));
  }
  Status status;
  report.comms = UnifyComms(ranks, writer, &status);
  RP_RETURN_IF_ERROR(status);
  report.sites = WriteSites(ranks, symbolizer, writer, &status);
  RP_RETURN_IF_ERROR(status);
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

  // Pass 2: events and samples by time.
  std::vector<Cursor> cursors;
  cursors.reserve(ranks.size());
  for (RankInfo& info : ranks) {
    auto file = RawFile::Open(info.path);
    if (!file.ok()) continue;
    Cursor cursor;
    cursor.info = &info;
    cursor.file = std::move(*file);
    cursors.push_back(std::move(cursor));
  }
  auto later = [&](size_t a, size_t b) {
    const Cursor& x = cursors[a];
    const Cursor& y = cursors[b];
    if (x.time != y.time) return x.time > y.time;
    return x.info->rank > y.info->rank;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < cursors.size(); ++i) {
    if (cursors[i].Advance()) heap.push(i);
  }
  trace::MpiRecord mpi;
  trace::SampleRecord sample;
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    Cursor& c = cursors[i];
    const raw::RecordHeader* rec = c.head();
    if (rec->kind == raw::kEvent) {
      EventView event;
      if (ParseEvent(rec, &event)) {
        ToMpiRecord(event, c, &mpi);
        RP_RETURN_IF_ERROR(writer.Write(mpi));
        ++report.events;
      }
    } else {
      SampleView view;
      if (ParseSample(rec, &view)) {
        const int hz = c.info->header.sample_hz;
        ToSampleRecord(view, c, hz > 0 ? 1'000'000'000LL / hz : 0, &sample);
        RP_RETURN_IF_ERROR(writer.Write(sample));
        ++report.samples;
      }
    }
    if (c.Advance()) heap.push(i);
  }
  return report;
}

}  // namespace rp::record
