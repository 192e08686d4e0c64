#include "lib/clocksync/clocksync.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "lib/base/radix_sort.h"
#include "lib/base/version.h"
#include "lib/clock/gaps.h"
#include "lib/clock/linear.h"
#include "lib/clock/repair.h"
#include "lib/match/match.h"
#include "lib/trace/input_set.h"
#include "lib/window/window.h"

namespace rp::clocksync {
namespace {

using clock::LinearClock;

// Stdin can be read once; the gaps method reads the trace twice. Unless
// stdin is a file already, a copy in an unlinked temporary file takes its
// place (so messages still name "<stdin>"), rewound before each pass.
class RewindableStdin {
 public:
  Status Prepare(const std::vector<std::string>& paths) {
    if (std::find(paths.begin(), paths.end(), "-") == paths.end()) return OkStatus();
    used_ = true;
    struct stat st;
    if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) return Rewind();
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/rp-clocksync.XXXXXX";
    const int fd = ::mkstemp(path.data());
    if (fd < 0) return InputError("cannot create a spool file for stdin: " + std::string(std::strerror(errno)));
    ::unlink(path.c_str());  // gone with the process
    char buf[1 << 16];
    for (;;) {
      const ssize_t got = ::read(STDIN_FILENO, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return InputError(std::string("cannot read stdin: ") + std::strerror(errno));
      if (got == 0) break;
      if (::write(fd, buf, got) != got) return InputError("cannot spool stdin to " + path + ": " + std::strerror(errno));
    }
    if (::dup2(fd, STDIN_FILENO) < 0) return InputError(std::string("cannot spool stdin: ") + std::strerror(errno));
    ::close(fd);
    return Rewind();
  }
  Status Rewind() {
    if (used_ && ::lseek(STDIN_FILENO, 0, SEEK_SET) < 0) {
      return InputError(std::string("cannot rewind stdin: ") + std::strerror(errno));
    }
    return OkStatus();
  }

 private:
  bool used_ = false;
};

// Pass 1 of --method gaps: every rank's exits of global synchronizations.
Expected<std::vector<std::vector<clock::SyncExit>>> CollectExits(const std::vector<std::string>& paths,
                                                                 const cli::IoOptions& io) {
  trace::InputSet input(paths, cli::ReaderOptionsFor(io));
  window::WindowReader windows(input);
  windows.set_hold_limit(io.hold);
  RP_RETURN_IF_ERROR(windows.Start());
  std::vector<std::vector<clock::SyncExit>> exits(std::max<int64_t>(windows.dictionary().ranks, 0));
  window::Window w;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, windows.Next(&w));
    if (!more) break;
    for (size_t r = 0; r < w.by_rank.size(); ++r) {
      for (uint32_t index : w.by_rank[r]) {
        const window::Event& e = w.events[index];
        const mpi::Function* f = e.function();
        if (f == nullptr || f->collective != mpi::Collective::kAll || f->nonblocking || e.comm == window::kNone ||
            !windows.dictionary().SpansWorld(e.comm)) {
          continue;
        }
        if (r >= exits.size()) exits.resize(r + 1);
        exits[r].push_back(clock::SyncExit{e.site == window::kNone ? -1 : e.site, e.t1});
      }
    }
  }
  return exits;
}

struct RankSummary {
  LinearClock clock;
  std::string method = "identity";
  int64_t first_local = INT64_MIN;
  int64_t moved = 0;
  int64_t max_shift = 0;
  int64_t backwards = 0;  // events whose local start precedes the previous one's
  int64_t last_t0 = INT64_MIN;
  bool seen = false;
};

// Where a window's record goes in the output: by new time, then rank,
// then input order.
struct OutputKey {
  int64_t time;
  int32_t rank;
  uint32_t index;
  bool operator<(const OutputKey& o) const {
    if (time != o.time) return time < o.time;
    if (rank != o.rank) return rank < o.rank;
    return index < o.index;
  }
};

// A window's record with its new times. Canonical lines are spliced where
// the decoder found their times.
Status WriteRecord(const window::Window& w, const OutputKey& key, trace::Writer* writer) {
  const window::WindowRecord& r = w.records[key.index];
  if (r.event >= 0) {
    const window::Event& e = w.events[r.event];
    if (r.canonical) {
      trace::SpanEdit times[] = {{r.time_spans[0], e.t0}, {r.time_spans[1], e.t1}};
      // EditSpans takes its edits in line order: a line whose keys are in
      // another order may give t1 first.
      if (times[1].at.begin < times[0].at.begin) std::swap(times[0], times[1]);
      return writer->WriteSpliced(w.line(r), times);
    }
    const trace::IntEdit times[] = {{"t0", e.t0}, {"t1", e.t1}};
    return writer->WriteEdited(trace::RecordType::kMpi, w.line(r), times);
  }
  if (r.type != trace::RecordType::kSample) return writer->WriteRaw(w.line(r));
  if (r.canonical) {
    const trace::SpanEdit time[] = {{r.time_spans[0], key.time}};
    return writer->WriteSpliced(w.line(r), time);
  }
  const trace::IntEdit time[] = {{"t", key.time}};
  return writer->WriteEdited(trace::RecordType::kSample, w.line(r), time);
}

std::string Ns(int64_t ns) {
  char buf[32];
  if (std::llabs(ns) >= 1'000'000) std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  else if (std::llabs(ns) >= 1'000) std::snprintf(buf, sizeof buf, "%.3f us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  return buf;
}

}  // namespace

std::vector<std::string> Methods() { return {"auto", "pingpong", "gaps", "identity"}; }

// The most mapped times may span (see the check in Run).
constexpr int64_t kMostSpan = int64_t{1} << 61;

Status Run(const cli::IoOptions& io, const Options& options) {
  const std::vector<std::string> paths = cli::InputPaths(io);
  const trace::ReaderOptions reader_options = cli::ReaderOptionsFor(io);

  std::vector<std::vector<clock::SyncExit>> exits;
  if (options.method == "gaps") {
    RewindableStdin in;
    RP_RETURN_IF_ERROR(in.Prepare(paths));
    RP_ASSIGN_OR_RETURN(exits, CollectExits(paths, io));
    RP_RETURN_IF_ERROR(in.Rewind());
  }

  trace::InputSet input(paths, reader_options);
  window::WindowReader windows(input);
  windows.set_hold_limit(io.hold);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  // The ranks: the header's count, or (without one, or when it is short)
  // as many as the rank, comm and clock records name; the window reader
  // has checked the first two.
  int64_t ranks = std::max<int64_t>(dict.ranks, 1);
  int64_t bad_clock_ranks = 0;
  for (const trace::RankRecord& r : dict.rank_records) ranks = std::max(ranks, r.rank + 1);
  for (const auto& [id, members] : dict.comm_ranks) {
    for (int64_t member : members) ranks = std::max(ranks, member + 1);
  }
  // Clock records name ranks within the header's count (or, without one,
  // the window reader's bound for rank records).
  const int64_t clock_rank_limit = dict.ranks > 0 ? dict.ranks : window::kRanksWithoutHeader;
  for (const trace::ClockRecord& c : dict.clocks) {
    if (c.rank >= 0 && c.rank < clock_rank_limit) ranks = std::max(ranks, c.rank + 1);
    else ++bad_clock_ranks;
  }
  if (bad_clock_ranks > 0) {
    spdlog::warn("{} clock record(s) name a rank outside 0..{}: not used", bad_clock_ranks, clock_rank_limit - 1);
  }
  std::vector<RankSummary> summary(ranks);

  // 1. The line of each rank.
  std::vector<std::vector<clock::OffsetMeasurement>> pingpong(ranks);
  for (const trace::ClockRecord& c : dict.clocks) {
    if (c.method != "pingpong" || c.rank < 0 || c.rank >= ranks || !c.has_t() || !c.has_offset()) continue;
    pingpong[c.rank].push_back({c.t, c.offset});
  }
  const bool have_pingpong = std::any_of(pingpong.begin(), pingpong.end(), [](const auto& m) { return !m.empty(); });
  std::string method = options.method;
  // A stream rp-clocksync wrote already: its clock records hold the local
  // times the mapping was made for, not these.
  const bool global = dict.header.has_clock() && dict.header.clock == "global";
  if (global && method == "auto") {
    method = "identity";
    spdlog::info("the trace is on one clock already (header \"clock\":\"global\"): times are not mapped again, "
                 "only violations repaired");
  } else if (global && method != "identity") {
    spdlog::warn("the trace is on one clock already (header \"clock\":\"global\"): --method {} maps it again",
                 method);
  }
  if (method == "auto") {
    method = have_pingpong ? "pingpong" : "identity";
    if (!have_pingpong) {
      spdlog::warn("the trace has no clock measurements (rp-record writes them at MPI_Init and MPI_Finalize): "
                   "times are left as they are; --method gaps aligns the ranks on their global synchronizations");
    }
  }
  if (method == "pingpong") {
    if (!have_pingpong) return InputError("--method pingpong: the trace has no ping-pong clock records");
    int64_t without = 0;
    for (int64_t r = 0; r < ranks; ++r) {
      if (pingpong[r].empty()) {
        ++without;
        continue;
      }
      summary[r].clock = clock::FitOffsets(pingpong[r]);
      summary[r].method = "linear";
    }
    if (without > 0) spdlog::warn("{} rank(s) have no clock measurement: their times are left as they are", without);
  } else if (method == "gaps") {
    exits.resize(ranks);
    const clock::GapsFit fit = clock::FitGaps(exits, options.gaps_tolerance);
    int64_t unfitted = 0;
    for (int64_t r = 0; r < ranks; ++r) {
      if (r < static_cast<int64_t>(fit.fitted.size()) && fit.fitted[r]) {
        summary[r].clock = fit.clocks[r];
        summary[r].method = "gaps";
      } else {
        ++unfitted;
      }
    }
    if (unfitted > 0) {
      spdlog::warn("--method gaps: {} rank(s) have no pair of global synchronization sites whose exit gaps to "
                   "rank 0 stay within {}; their times are left as they are",
                   unfitted, Ns(options.gaps_tolerance));
    }
  }

  // A clock that runs 1% off rank 0's is no quartz clock: the
  // measurements are too close together (noise over a short run) or wrong.
  // Its offset is kept, without drift, which could map times anywhere.
  constexpr double kMostDrift = 0.01;
  int64_t steep = 0, first_steep = -1;
  for (int64_t r = 0; r < ranks; ++r) {
    LinearClock& c = summary[r].clock;
    if (!(std::abs(c.drift) <= kMostDrift)) {
      if (steep++ == 0) first_steep = r;
      spdlog::debug("rank {}: drift {:.0f} ppm dropped", r, c.drift * 1e6);
      c.drift = 0;
    }
  }
  if (steep > 0) {
    spdlog::warn("{} rank(s) (first: rank {}) have clock measurements implying a drift beyond {:.0f} ppm: "
                 "only their offset is used", steep, first_steep, kMostDrift * 1e6);
  }

  // Header and dictionaries.
  RP_ASSIGN_OR_RETURN(auto writer, cli::OpenWriter(io));
  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-clocksync ") + kVersion, writer.get(),
                                          [](trace::HeaderRecord& h) { h.set_clock("global"); }));

  // 2. Window by window: map, repair, write sorted by the new times.
  clock::RepairOptions repair_options;
  repair_options.min_latency = options.min_latency;
  repair_options.max_slope = options.max_slope;
  repair_options.amortize = options.amortize;
  // Violations are counted only to be printed (--report, or -v).
  const auto level = options.report ? spdlog::level::info : spdlog::level::debug;
  const bool count_violations = spdlog::should_log(level);
  clock::Violations mapped_violations, final_violations;
  int64_t unmatched_sends = 0, unmatched_receives = 0, unresolved = 0, mismatched = 0, incomplete = 0, cycles = 0;
  int64_t unknown_rank_events = 0, first_unknown_rank = -1;  // of ranks no record names
  int64_t earliest = INT64_MAX, latest = INT64_MIN;          // mapped times, over the run
  std::vector<std::string> examples;
  std::vector<int64_t> carried_shift(ranks, 0);  // repair shifts go on across windows
  window::Window w;
  clock::Constraints constraints;
  std::vector<OutputKey> untimed, order, scratch;
  cli::Progress progress("rp-clocksync", io.verbosity);
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, windows.Next(&w));
    if (!more) break;
    progress.Update(windows.records_read(), input.raw_bytes());
    for (window::Event& e : w.events) {
      if (e.rank < 0 || e.rank >= ranks) {
        if (unknown_rank_events++ == 0) first_unknown_rank = e.rank;
        continue;
      }
      RankSummary& s = summary[e.rank];
      if (!s.seen) s.first_local = e.t0;
      s.seen = true;
      if (e.t0 < s.last_t0) ++s.backwards;
      s.last_t0 = e.t0;
      e.t0 = s.clock.ToGlobal(e.t0);
      e.t1 = std::max(e.t0, s.clock.ToGlobal(e.t1));
      earliest = std::min(earliest, e.t0);
      latest = std::max(latest, e.t1);
    }
    // Repair takes differences of these times and shifts them: they must
    // stay within the bound the reader holds inputs to (window.h).
    // The span is held to 2^61 (73 years): the repair's shifts, up to the
    // span, then stay within 2^63 however they add up along a chain.
    if (earliest <= latest && (!window::TimeInRange(earliest) || !window::TimeInRange(latest) ||
                               static_cast<uint64_t>(latest) - static_cast<uint64_t>(earliest) >=
                                   static_cast<uint64_t>(kMostSpan))) {
      // The rank whose time lies farthest from rank 0's zero names the clock.
      const window::Event* far = nullptr;
      for (const window::Event& e : w.events) {
        if (e.rank < 0 || e.rank >= ranks) continue;  // not mapped
        if (far == nullptr || std::max(std::abs(static_cast<double>(e.t0)), std::abs(static_cast<double>(e.t1))) >
            std::max(std::abs(static_cast<double>(far->t0)), std::abs(static_cast<double>(far->t1)))) {
          far = &e;
        }
      }
      const LinearClock& c = summary[far->rank].clock;
      const std::string span = "times on rank 0's clock span " + std::to_string(earliest) + ".." +
                               std::to_string(latest) + " ns, more than 2^61 ns (73 years): rank " +
                               std::to_string(far->rank) + " seq " + std::to_string(far->seq);
      if (c.identity()) return InputError(span + " is at " + std::to_string(far->t0) + " on its own clock");
      return InputError(span + " maps to " + std::to_string(far->t0) + " with offset " + std::to_string(c.offset) +
                        " ns and drift " + std::to_string(c.drift * 1e6) +
                        " ppm; its clock records are wrong (--method identity ignores them)");
    }
    const match::Matching matching = match::Match(w, dict);
    unmatched_sends += matching.unmatched_sends;
    unmatched_receives += matching.unmatched_receives;
    unresolved += matching.unresolved_receives;
    mismatched += matching.mismatched_collectives;
    incomplete += matching.incomplete_collectives;
    for (const std::string& example : matching.examples) {
      if (examples.size() < 5) examples.push_back(example);
    }
    constraints.Build(w, matching);
    if (count_violations) mapped_violations.Add(clock::CountViolations(w, constraints, options.min_latency));
    if (options.repair) {
      const clock::RepairResult result = clock::Repair(&w, constraints, repair_options, &carried_shift);
      cycles += result.cycles_broken;
      for (size_t r = 0; r < result.ranks.size() && r < summary.size(); ++r) {
        summary[r].moved += result.ranks[r].moved;
        summary[r].max_shift = std::max(summary[r].max_shift, result.ranks[r].max_shift);
      }
    }
    if (count_violations) final_violations.Add(clock::CountViolations(w, constraints, options.min_latency));

    // New times of the window's records; records of no rank (or of no
    // time) stay first, by rank. With local clocks the input order is far
    // from the new one: the others are sorted by rank, then by time, both
    // stable (lib/base/radix_sort.h).
    untimed.clear();
    order.clear();
    for (size_t i = 0; i < w.records.size(); ++i) {
      const window::WindowRecord& r = w.records[i];
      int64_t time = INT64_MIN;
      if (r.event >= 0) {
        time = w.events[r.event].t0;
      } else if (r.type == trace::RecordType::kSample && r.rank >= 0 && r.rank < ranks) {
        time = summary[r.rank].clock.ToGlobal(r.time);
      }
      (time == INT64_MIN ? untimed : order).push_back({time, r.rank, static_cast<uint32_t>(i)});
    }
    std::stable_sort(untimed.begin(), untimed.end(),
                     [](const OutputKey& a, const OutputKey& b) { return a.rank < b.rank; });
    // Often in order already: a pass instead of a sort.
    if (!std::is_sorted(order.begin(), order.end())) {
      RadixSortStable(order, scratch, [](const OutputKey& k) { return static_cast<uint64_t>(k.rank); });
      RadixSortStable(order, scratch, [](const OutputKey& k) { return OrderedKey(k.time); });
    }
    for (const OutputKey& key : untimed) RP_RETURN_IF_ERROR(WriteRecord(w, key, writer.get()));
    // In time order the window's records are read at random: their text
    // and events are fetched some records ahead.
    constexpr size_t kRecordAhead = 16, kTextAhead = 8;
    for (size_t j = 0; j < order.size(); ++j) {
      if (j + kRecordAhead < order.size()) __builtin_prefetch(&w.records[order[j + kRecordAhead].index]);
      if (j + kTextAhead < order.size()) {
        const window::WindowRecord& ahead = w.records[order[j + kTextAhead].index];
        const char* text = ahead.text;
        __builtin_prefetch(text);
        __builtin_prefetch(text + 64);
        __builtin_prefetch(text + 128);
        if (ahead.event >= 0) __builtin_prefetch(&w.events[ahead.event]);
      }
      RP_RETURN_IF_ERROR(WriteRecord(w, order[j], writer.get()));
    }
  }
  progress.Done();

  // Per-rank summaries, at the end: the repair's counts are known by now.
  for (int64_t r = 0; r < ranks; ++r) {
    const RankSummary& s = summary[r];
    trace::ClockRecord c;
    c.set_rank(r);
    c.set_method(s.method);
    c.set_offset(s.clock.OffsetAt(s.seen ? s.first_local : s.clock.reference));
    c.set_drift(s.clock.drift * 1e6);
    c.set_moved(s.moved);
    c.set_max_shift(s.max_shift);
    RP_RETURN_IF_ERROR(writer->Write(c));
  }
  RP_RETURN_IF_ERROR(writer->Close());

  // Diagnostics.
  cli::WarnAboutWindows(windows);
  if (unknown_rank_events > 0) {
    spdlog::warn("{} event(s) of ranks beyond the {} the header and the rank, comm and clock records name "
                 "(first: rank {}) are left on their own clock", unknown_rank_events, ranks, first_unknown_rank);
  }
  int64_t silent = 0, first_silent = -1;
  for (int64_t r = 0; r < ranks; ++r) {
    if (summary[r].seen) continue;
    if (silent++ == 0) first_silent = r;
  }
  if (silent > 0 && silent < ranks) {
    spdlog::warn("{} of the {} ranks have no mpi record (first: rank {}): missing from the trace", silent, ranks,
                 first_silent);
  }
  int64_t backwards = 0;
  for (const RankSummary& s : summary) backwards += s.backwards;
  if (backwards > 0) {
    spdlog::warn("{} event(s) start before the previous event of their rank (non-monotone local clock); "
                 "they were kept in order of seq", backwards);
  }
  if (unmatched_sends + unmatched_receives + unresolved > 0) {
    spdlog::warn("{} send(s) and {} receive(s) found no partner, {} receive(s) have no known source or tag "
                 "(a wildcard never completed, or fields missing); their messages were not used (first: {})",
                 unmatched_sends, unmatched_receives, unresolved, examples.empty() ? "-" : examples.front());
  }
  if (mismatched > 0) spdlog::warn("{} collective instance member(s) called a different function", mismatched);
  if (incomplete > 0) {
    spdlog::warn("{} collective instance(s) have fewer or more members than their communicator (a rank is "
                 "missing, or skipped a call): later calls on that communicator may be paired wrongly",
                 incomplete);
  }
  if (cycles > 0) {
    spdlog::warn("{} dependency cycle(s) broken: the trace's messages or collectives contradict each other", cycles);
  }
  spdlog::log(level, "violations after the {} mapping: {} message(s), {} collective exit(s), worst {}", method,
              mapped_violations.messages, mapped_violations.collectives, Ns(mapped_violations.worst));
  spdlog::log(level, "violations after repair: {} message(s), {} collective exit(s), worst {}",
              final_violations.messages, final_violations.collectives, Ns(final_violations.worst));
  if (silent == ranks && unknown_rank_events == 0) {
    // Like rp-phases and rp-cpath: exit 1, the stream (header, dictionaries,
    // clock records) written all the same.
    return NothingError("the trace has no mpi records: no times to put on one clock");
  }
  if (options.report) {
    for (int64_t r = 0; r < ranks; ++r) {
      const RankSummary& s = summary[r];
      spdlog::info("rank {}: {} offset {} drift {:.3f} ppm; repair moved {} event(s), at most {}", r, s.method,
                   Ns(s.clock.OffsetAt(s.seen ? s.first_local : s.clock.reference)), s.clock.drift * 1e6,
                   s.moved, Ns(s.max_shift));
    }
  }
  return OkStatus();
}

}  // namespace rp::clocksync
