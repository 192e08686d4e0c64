#include "lib/clocksync/clocksync.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/radix_sort.h"
#include "lib/base/version.h"
#include "lib/clock/repair.h"
#include "lib/match/match.h"

namespace rp::clocksync {
namespace {

using clock::LinearClock;

// The most mapped times may span: the repair's shifts, up to the span,
// then stay within 2^63 however they add up along a chain (73 years).
constexpr int64_t kMostSpan = int64_t{1} << 61;

// Pass 1 of Method::kGaps: every rank's exits of global synchronizations.
Expected<std::vector<std::vector<clock::SyncExit>>> CollectExits(trace::InputSet& input,
                                                                 const window::ReadConfig& read) {
  window::ReadConfig quiet = read;
  quiet.progress = nullptr;
  window::WindowReader windows(input, window::Boundaries::kClean, quiet);
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
Status WriteRecord(const window::Window& w, const OutputKey& key, trace::Writer& out) {
  const window::Line& r = w.lines[key.index];
  if (r.event >= 0) {
    const window::Event& e = w.events[r.event];
    if (r.canonical) {
      trace::SpanEdit times[] = {{r.time_spans[0], e.t0}, {r.time_spans[1], e.t1}};
      // EditSpans takes its edits in line order: a line whose keys are in
      // another order may give t1 first.
      if (times[1].at.begin < times[0].at.begin) std::swap(times[0], times[1]);
      return out.WriteSpliced(w.text(r), times);
    }
    const trace::IntEdit times[] = {{"t0", e.t0}, {"t1", e.t1}};
    return out.WriteEdited(trace::RecordType::kMpi, w.text(r), times);
  }
  if (r.type != trace::RecordType::kSample) return out.WriteRaw(w.text(r));
  if (r.canonical) {
    const trace::SpanEdit time[] = {{r.time_spans[0], key.time}};
    return out.WriteSpliced(w.text(r), time);
  }
  const trace::IntEdit time[] = {{"t", key.time}};
  return out.WriteEdited(trace::RecordType::kSample, w.text(r), time);
}

// What matching and repair found wrong, over the run, for the warnings.
struct Problems {
  int64_t unmatched_sends = 0, unmatched_receives = 0, unresolved = 0, mismatched = 0, incomplete = 0, cycles = 0;
  int64_t unknown_rank_events = 0, first_unknown_rank = -1;  // of ranks no record names
  std::vector<std::string> examples;
  void Add(const match::Matching& m) {
    unmatched_sends += m.unmatched_sends;
    unmatched_receives += m.unmatched_receives;
    unresolved += m.unresolved_receives;
    mismatched += m.mismatched_collectives;
    incomplete += m.incomplete_collectives;
    for (const std::string& example : m.examples) {
      if (examples.size() < 5) examples.push_back(example);
    }
  }
};

// Step 2, window after window: map the times, repair, write them sorted.
class Synchronizer {
 public:
  Synchronizer(const Config& config, const window::Dictionary& dict, Clocks clocks, trace::Writer& out)
      : config_(config), dict_(dict), clocks_(std::move(clocks)), out_(out),
        ranks_(static_cast<int64_t>(clocks_.by_rank.size())), summary_(ranks_), carried_shift_(ranks_, 0) {
    repair_.min_latency = config.min_latency;
    repair_.max_slope = config.max_slope;
    repair_.amortize = config.amortize;
  }

  Status AddWindow(window::Window& w) {
    MapTimes(w);
    RP_RETURN_IF_ERROR(CheckSpan(w));
    const match::Matching matching = match::Match(w, dict_);
    problems_.Add(matching);
    constraints_.Build(w, matching);
    if (count_violations_) mapped_violations_.Add(clock::CountViolations(w, constraints_, config_.min_latency));
    if (config_.repair) {
      const clock::RepairResult result = clock::Repair(&w, constraints_, repair_, &carried_shift_);
      problems_.cycles += result.cycles_broken;
      for (size_t r = 0; r < result.ranks.size() && r < summary_.size(); ++r) {
        summary_[r].moved += result.ranks[r].moved;
        summary_[r].max_shift = std::max(summary_[r].max_shift, result.ranks[r].max_shift);
      }
    }
    if (count_violations_) final_violations_.Add(clock::CountViolations(w, constraints_, config_.min_latency));
    return WriteSorted(w);
  }

  // Per-rank summaries, at the end: the repair's counts are known by now.
  Status WriteSummaries() {
    for (int64_t r = 0; r < ranks_; ++r) {
      const RankSummary& s = summary_[r];
      trace::ClockRecord c;
      c.set_rank(r);
      c.set_method(clocks_.method_of[r]);
      c.set_offset(OffsetAtStart(r));
      c.set_drift(clocks_.by_rank[r].drift * 1e6);
      c.set_moved(s.moved);
      c.set_max_shift(s.max_shift);
      if (clocks_.group_of[r] != r) c.set_shares(clocks_.group_of[r]);
      RP_RETURN_IF_ERROR(out_.Write(c));
    }
    return OkStatus();
  }

  // Exit 1 when no rank had an mpi record.
  Status Warn() const;

  // Which ranks read one clock, for --report.
  void ReportGroups() const {
    std::map<int64_t, std::vector<int64_t>> groups;
    for (int64_t r = 0; r < ranks_; ++r) groups[clocks_.group_of[r]].push_back(r);
    for (const auto& [leader, members] : groups) {
      if (members.size() < 2) continue;
      spdlog::info("ranks {} read one clock (same host and boot): {}", RankList(members),
                   leader == 0 ? "rank 0's, left as it is" : "mapped as one, from rank " + std::to_string(leader) +
                                                                 "'s group's measurements");
    }
  }

 private:
  // The clock's offset at the rank's first event (or at its reference).
  int64_t OffsetAtStart(int64_t r) const {
    const LinearClock& c = clocks_.by_rank[r];
    return c.OffsetAt(summary_[r].seen ? summary_[r].first_local : c.reference);
  }

  void MapTimes(window::Window& w) {
    for (window::Event& e : w.events) {
      if (e.rank < 0 || e.rank >= ranks_) {
        if (problems_.unknown_rank_events++ == 0) problems_.first_unknown_rank = e.rank;
        continue;
      }
      RankSummary& s = summary_[e.rank];
      if (!s.seen) s.first_local = e.t0;
      s.seen = true;
      if (e.t0 < s.last_t0) ++s.backwards;
      s.last_t0 = e.t0;
      const LinearClock& c = clocks_.by_rank[e.rank];
      e.t0 = c.ToGlobal(e.t0);
      e.t1 = std::max(e.t0, c.ToGlobal(e.t1));
      earliest_ = std::min(earliest_, e.t0);
      latest_ = std::max(latest_, e.t1);
    }
  }

  // Repair takes differences of the mapped times and shifts them: they
  // must stay within the bound the reader holds inputs to (window.h), and
  // span less than kMostSpan.
  Status CheckSpan(const window::Window& w) const {
    if (earliest_ > latest_ || (window::TimeInRange(earliest_) && window::TimeInRange(latest_) &&
                                static_cast<uint64_t>(latest_) - static_cast<uint64_t>(earliest_) <
                                    static_cast<uint64_t>(kMostSpan))) {
      return OkStatus();
    }
    // The rank whose time lies farthest from rank 0's zero names the clock.
    auto farthest = [](const window::Event& e) {
      return std::max(std::abs(static_cast<double>(e.t0)), std::abs(static_cast<double>(e.t1)));
    };
    const window::Event* far = nullptr;
    for (const window::Event& e : w.events) {
      if (e.rank < 0 || e.rank >= ranks_) continue;  // not mapped
      if (far == nullptr || farthest(e) > farthest(*far)) far = &e;
    }
    const LinearClock& c = clocks_.by_rank[far->rank];
    const std::string span = "times on rank 0's clock span " + std::to_string(earliest_) + ".." +
                             std::to_string(latest_) + " ns, more than 2^61 ns (73 years): rank " +
                             std::to_string(far->rank) + " seq " + std::to_string(far->seq);
    if (c.identity()) return InputError(span + " is at " + std::to_string(far->t0) + " on its own clock");
    return InputError(span + " maps to " + std::to_string(far->t0) + " with offset " + std::to_string(c.offset) +
                      " ns and drift " + std::to_string(c.drift * 1e6) +
                      " ppm; its clock records are wrong (--method identity ignores them)");
  }

  // The window's records by their new times; records of no rank (or of no
  // time) first, by rank. With local clocks the input order is far from
  // the new one: the others are sorted by rank, then by time, both stable
  // (lib/base/radix_sort.h).
  Status WriteSorted(const window::Window& w) {
    untimed_.clear();
    order_.clear();
    for (size_t i = 0; i < w.lines.size(); ++i) {
      const window::Line& r = w.lines[i];
      int64_t time = INT64_MIN;
      if (r.event >= 0) {
        time = w.events[r.event].t0;
      } else if (r.type == trace::RecordType::kSample && r.rank >= 0 && r.rank < ranks_) {
        time = clocks_.by_rank[r.rank].ToGlobal(r.time);
      }
      (time == INT64_MIN ? untimed_ : order_).push_back({time, r.rank, static_cast<uint32_t>(i)});
    }
    std::stable_sort(untimed_.begin(), untimed_.end(),
                     [](const OutputKey& a, const OutputKey& b) { return a.rank < b.rank; });
    // Often in order already: a pass instead of a sort.
    if (!std::is_sorted(order_.begin(), order_.end())) {
      RadixSortStable(order_, scratch_, [](const OutputKey& k) { return static_cast<uint64_t>(k.rank); });
      RadixSortStable(order_, scratch_, [](const OutputKey& k) { return OrderedKey(k.time); });
    }
    for (const OutputKey& key : untimed_) RP_RETURN_IF_ERROR(WriteRecord(w, key, out_));
    // In time order the window's records are read at random: their text
    // and events are fetched some records ahead.
    constexpr size_t kRecordAhead = 16, kTextAhead = 8;
    for (size_t j = 0; j < order_.size(); ++j) {
      if (j + kRecordAhead < order_.size()) __builtin_prefetch(&w.lines[order_[j + kRecordAhead].index]);
      if (j + kTextAhead < order_.size()) {
        const window::Line& ahead = w.lines[order_[j + kTextAhead].index];
        const char* text = ahead.text;
        __builtin_prefetch(text);
        __builtin_prefetch(text + 64);
        __builtin_prefetch(text + 128);
        if (ahead.event >= 0) __builtin_prefetch(&w.events[ahead.event]);
      }
      RP_RETURN_IF_ERROR(WriteRecord(w, order_[j], out_));
    }
    return OkStatus();
  }

  const Config& config_;
  const window::Dictionary& dict_;
  const Clocks clocks_;
  trace::Writer& out_;
  const int64_t ranks_;
  std::vector<RankSummary> summary_;
  std::vector<int64_t> carried_shift_;  // repair shifts go on across windows
  clock::RepairOptions repair_;
  clock::Constraints constraints_;
  // Violations are counted only to be printed (--report, or -v).
  const spdlog::level::level_enum level_ = config_.report ? spdlog::level::info : spdlog::level::debug;
  const bool count_violations_ = spdlog::should_log(level_);
  clock::Violations mapped_violations_, final_violations_;
  Problems problems_;
  int64_t earliest_ = INT64_MAX, latest_ = INT64_MIN;  // mapped times, over the run
  std::vector<OutputKey> untimed_, order_, scratch_;
};

Status Synchronizer::Warn() const {
  const Problems& p = problems_;
  if (p.unknown_rank_events > 0) {
    spdlog::warn("{} event(s) of ranks beyond the {} the header and the rank, comm and clock records name "
                 "(first: rank {}) are left on their own clock", p.unknown_rank_events, ranks_, p.first_unknown_rank);
  }
  int64_t silent = 0, first_silent = -1;
  for (int64_t r = 0; r < ranks_; ++r) {
    if (summary_[r].seen) continue;
    if (silent++ == 0) first_silent = r;
  }
  if (silent > 0 && silent < ranks_) {
    spdlog::warn("{} of the {} ranks have no mpi record (first: rank {}): missing from the trace", silent, ranks_,
                 first_silent);
  }
  int64_t backwards = 0;
  for (const RankSummary& s : summary_) backwards += s.backwards;
  if (backwards > 0) {
    spdlog::warn("{} event(s) start before the previous event of their rank (non-monotone local clock); "
                 "they were kept in order of seq", backwards);
  }
  if (p.unmatched_sends + p.unmatched_receives + p.unresolved > 0) {
    spdlog::warn("{} send(s) and {} receive(s) found no partner, {} receive(s) have no known source or tag "
                 "(a wildcard never completed, or fields missing); their messages were not used (first: {})",
                 p.unmatched_sends, p.unmatched_receives, p.unresolved,
                 p.examples.empty() ? "-" : p.examples.front());
  }
  if (p.mismatched > 0) spdlog::warn("{} collective instance member(s) called a different function", p.mismatched);
  if (p.incomplete > 0) {
    spdlog::warn("{} collective instance(s) have fewer or more members than their communicator (a rank is "
                 "missing, or skipped a call): later calls on that communicator may be paired wrongly",
                 p.incomplete);
  }
  if (p.cycles > 0) {
    spdlog::warn("{} dependency cycle(s) broken: the trace's messages or collectives contradict each other",
                 p.cycles);
  }
  const std::string_view method = MethodName(clocks_.method);
  spdlog::log(level_, "violations after the {} mapping: {} message(s), {} collective exit(s), worst {}", method,
              mapped_violations_.messages, mapped_violations_.collectives, Ns(mapped_violations_.worst));
  spdlog::log(level_, "violations after repair: {} message(s), {} collective exit(s), worst {}",
              final_violations_.messages, final_violations_.collectives, Ns(final_violations_.worst));
  if (silent == ranks_ && p.unknown_rank_events == 0) {
    // Like rp-phases and rp-cpath: exit 1, the stream (header, dictionaries,
    // clock records) written all the same.
    return NothingError("the trace has no mpi records: no times to put on one clock");
  }
  if (config_.report) {
    ReportGroups();
    for (int64_t r = 0; r < ranks_; ++r) {
      const RankSummary& s = summary_[r];
      spdlog::info("rank {}: {} offset {} drift {:.3f} ppm; repair moved {} event(s), at most {}", r,
                   clocks_.method_of[r], Ns(OffsetAtStart(r)), clocks_.by_rank[r].drift * 1e6, s.moved,
                   Ns(s.max_shift));
    }
  }
  return OkStatus();
}

}  // namespace

Status Run(const Config& config, trace::InputSet& input, trace::Writer& out) {
  std::vector<std::vector<clock::SyncExit>> exits;
  if (config.method == Method::kGaps) {
    RP_ASSIGN_OR_RETURN(exits, CollectExits(input, config.read));
    input.Rewind();
  }
  window::WindowReader windows(input, window::Boundaries::kClean, config.read);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  const int64_t ranks = CountRanks(dict);
  RP_ASSIGN_OR_RETURN(Clocks clocks, ChooseClocks(dict, ranks, config.method, std::move(exits), config.gaps_tolerance));

  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-clocksync ") + kVersion, &out,
                                          [](trace::HeaderRecord& h) { h.set_clock("global"); }));
  Synchronizer sync(config, dict, std::move(clocks), out);
  window::Window w;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, windows.Next(&w));
    if (!more) break;
    RP_RETURN_IF_ERROR(sync.AddWindow(w));
  }
  RP_RETURN_IF_ERROR(sync.WriteSummaries());
  RP_RETURN_IF_ERROR(out.Close());
  window::WarnAboutInput(windows);
  return sync.Warn();
}

}  // namespace rp::clocksync
