#include "lib/clocksync/synchronizer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "lib/base/radix_sort.h"

namespace rp::clocksync::internal {
namespace {

using clock::LinearClock;

// The most mapped times may span: the repair's shifts, up to the span,
// then stay within 2^63 however they add up along a chain (73 years).
constexpr int64_t kMostSpan = int64_t{1} << 61;

}  // namespace

void Tally::Add(const match::Matching& m) {
  unmatched_sends += m.unmatched_sends;
  unmatched_receives += m.unmatched_receives;
  unresolved += m.unresolved_receives;
  mismatched += m.mismatched_collectives;
  incomplete += m.incomplete_collectives;
  for (const std::string& example : m.examples) {
    if (examples.size() < 5) examples.push_back(example);
  }
}

void Tally::Add(const clock::RepairResult& result) {
  cycles += result.cycles_broken;
  for (size_t r = 0; r < result.ranks.size() && r < ranks.size(); ++r) {
    ranks[r].moved += result.ranks[r].moved;
    ranks[r].max_shift = std::max(ranks[r].max_shift, result.ranks[r].max_shift);
  }
}

void Tally::Pack(dist::Packer* out) const {
  int64_t seen = 0;
  for (const RankSummary& s : ranks) seen += s.seen || s.moved > 0 || s.backwards > 0;
  out->Put<int64_t>(seen);
  for (size_t r = 0; r < ranks.size(); ++r) {
    const RankSummary& s = ranks[r];
    if (!(s.seen || s.moved > 0 || s.backwards > 0)) continue;
    out->Put<int64_t>(static_cast<int64_t>(r));
    out->Put(s);
  }
  for (int64_t v : {unmatched_sends, unmatched_receives, unresolved, mismatched, incomplete, cycles,
                    unknown_rank_events, first_unknown_rank}) {
    out->Put(v);
  }
  for (const clock::Violations& v : {mapped, final}) out->Put(v);
  out->Put<uint64_t>(examples.size());
  for (const std::string& e : examples) out->PutString(e);
}

Status Tally::AddPacked(dist::Unpacker* in) {
  for (int64_t n = in->Get<int64_t>(); n > 0 && !in->bad(); --n) {
    const int64_t r = in->Get<int64_t>();
    const RankSummary s = in->Get<RankSummary>();
    if (r < 0 || static_cast<size_t>(r) >= ranks.size()) return InputError("a summary of rank " + std::to_string(r));
    ranks[r] = s;  // each rank is read by one process
  }
  int64_t v[8];
  for (int64_t& x : v) x = in->Get<int64_t>();
  unmatched_sends += v[0], unmatched_receives += v[1], unresolved += v[2], mismatched += v[3], incomplete += v[4];
  cycles += v[5];
  if (v[6] > 0 && unknown_rank_events == 0) first_unknown_rank = v[7];
  unknown_rank_events += v[6];
  mapped.Add(in->Get<clock::Violations>());
  final.Add(in->Get<clock::Violations>());
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    std::string e = in->GetString();
    if (examples.size() < 5) examples.push_back(std::move(e));
  }
  return in->bad() ? InputError("a damaged tally") : OkStatus();
}

Synchronizer::Synchronizer(const Config& config, const window::Dictionary& dict, Clocks clocks)
    : config_(config), dict_(dict), clocks_(std::move(clocks)), ranks_(static_cast<int64_t>(clocks_.by_rank.size())),
      carried_shift_(ranks_, 0), level_(config.report ? spdlog::level::info : spdlog::level::debug),
      count_violations_(spdlog::should_log(level_)) {
  tally_.ranks.resize(ranks_);
  repair_.min_latency = config.min_latency;
  repair_.max_slope = config.max_slope;
  repair_.amortize = config.amortize;
}

void Synchronizer::MapTimes(window::Window& w) {
  for (window::Event& e : w.events) {
    if (e.rank < 0 || e.rank >= ranks_) {
      if (e.ghost()) continue;  // its holder counts it
      if (tally_.unknown_rank_events++ == 0) tally_.first_unknown_rank = e.rank;
      continue;
    }
    const LinearClock& c = clocks_.by_rank[e.rank];
    if (!e.ghost()) {
      RankSummary& s = tally_.ranks[e.rank];
      if (!s.seen) s.first_local = e.t0;
      s.seen = true;
      if (e.t0 < s.last_t0) ++s.backwards;
      s.last_t0 = e.t0;
    }
    e.t0 = c.ToGlobal(e.t0);
    e.t1 = std::max(e.t0, c.ToGlobal(e.t1));
    if (e.ghost()) continue;
    earliest_ = std::min(earliest_, e.t0);
    latest_ = std::max(latest_, e.t1);
  }
}

Status Synchronizer::CheckSpan(const window::Window& w) const {
  if (earliest_ > latest_ ||
      (window::TimeInRange(earliest_) && window::TimeInRange(latest_) &&
       static_cast<uint64_t>(latest_) - static_cast<uint64_t>(earliest_) < static_cast<uint64_t>(kMostSpan))) {
    return OkStatus();
  }
  // The rank whose time lies farthest from rank 0's zero names the clock.
  auto farthest = [](const window::Event& e) {
    return std::max(std::abs(static_cast<double>(e.t0)), std::abs(static_cast<double>(e.t1)));
  };
  const window::Event* far = nullptr;
  for (const window::Event& e : w.events) {
    if (e.rank < 0 || e.rank >= ranks_ || e.ghost()) continue;  // not mapped, or another process's
    if (far == nullptr || farthest(e) > farthest(*far)) far = &e;
  }
  const std::string span = "times on rank 0's clock span " + std::to_string(earliest_) + ".." +
                           std::to_string(latest_) + " ns, more than 2^61 ns (73 years)";
  if (far == nullptr) return InputError(span);
  const LinearClock& c = clocks_.by_rank[far->rank];
  const std::string at = span + ": rank " + std::to_string(far->rank) + " seq " + std::to_string(far->seq);
  if (c.identity()) return InputError(at + " is at " + std::to_string(far->t0) + " on its own clock");
  return InputError(at + " maps to " + std::to_string(far->t0) + " with offset " + std::to_string(c.offset) +
                    " ns and drift " + std::to_string(c.drift * 1e6) +
                    " ppm; its clock records are wrong (--method identity ignores them)");
}

// A window's record with its new times. Canonical lines are spliced where
// the decoder found their times.
Status Synchronizer::WriteRecord(const window::Window& w, const OutputKey& key, trace::Writer& out) const {
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

// With local clocks the input order is far from the new one: the timed
// records are sorted by rank, then by time, both stable
// (lib/base/radix_sort.h).
Status Synchronizer::WriteSorted(const window::Window& w, trace::Writer& out) {
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
  written_ = {static_cast<int64_t>(untimed_.size() + order_.size())};
  if (!order_.empty()) {
    written_.first_time = order_.front().time, written_.first_rank = order_.front().rank;
    written_.last_time = order_.back().time, written_.last_rank = order_.back().rank;
  }
  for (const OutputKey& key : untimed_) RP_RETURN_IF_ERROR(WriteRecord(w, key, out));
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
    RP_RETURN_IF_ERROR(WriteRecord(w, order_[j], out));
  }
  return OkStatus();
}

// The clock's offset at the rank's first event (or at its reference).
int64_t Synchronizer::OffsetAtStart(int64_t r) const {
  const LinearClock& c = clocks_.by_rank[r];
  return c.OffsetAt(tally_.ranks[r].seen ? tally_.ranks[r].first_local : c.reference);
}

Status Synchronizer::WriteSummaries(trace::Writer& out) const {
  for (int64_t r = 0; r < ranks_; ++r) {
    const RankSummary& s = tally_.ranks[r];
    trace::ClockRecord c;
    c.set_rank(r);
    c.set_method(clocks_.method_of[r]);
    c.set_offset(OffsetAtStart(r));
    c.set_drift(clocks_.by_rank[r].drift * 1e6);
    c.set_moved(s.moved);
    c.set_max_shift(s.max_shift);
    if (clocks_.group_of[r] != r) c.set_shares(clocks_.group_of[r]);
    RP_RETURN_IF_ERROR(out.Write(c));
  }
  return OkStatus();
}

// Which ranks read one clock, for --report.
void Synchronizer::ReportGroups() const {
  std::map<int64_t, std::vector<int64_t>> groups;
  for (int64_t r = 0; r < ranks_; ++r) groups[clocks_.group_of[r]].push_back(r);
  for (const auto& [leader, members] : groups) {
    if (members.size() < 2) continue;
    spdlog::info("ranks {} read one clock (same host and boot): {}", RankList(members),
                 leader == 0 ? "rank 0's, left as it is" : "mapped as one, from rank " + std::to_string(leader) +
                                                               "'s group's measurements");
  }
}

Status Synchronizer::Warn() const {
  const Tally& p = tally_;
  if (p.unknown_rank_events > 0) {
    spdlog::warn("{} event(s) of ranks beyond the {} the header and the rank, comm and clock records name "
                 "(first: rank {}) are left on their own clock", p.unknown_rank_events, ranks_, p.first_unknown_rank);
  }
  int64_t silent = 0, first_silent = -1;
  for (int64_t r = 0; r < ranks_; ++r) {
    if (tally_.ranks[r].seen) continue;
    if (silent++ == 0) first_silent = r;
  }
  if (silent > 0 && silent < ranks_) {
    spdlog::warn("{} of the {} ranks have no mpi record (first: rank {}): missing from the trace", silent, ranks_,
                 first_silent);
  }
  int64_t backwards = 0;
  for (const RankSummary& s : tally_.ranks) backwards += s.backwards;
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
              p.mapped.messages, p.mapped.collectives, Ns(p.mapped.worst));
  spdlog::log(level_, "violations after repair: {} message(s), {} collective exit(s), worst {}",
              p.final.messages, p.final.collectives, Ns(p.final.worst));
  if (silent == ranks_ && p.unknown_rank_events == 0) {
    // Like rp-phases and rp-cpath: exit 1, the stream (header, dictionaries,
    // clock records) written all the same.
    return NothingError("the trace has no mpi records: no times to put on one clock");
  }
  if (config_.report) {
    ReportGroups();
    for (int64_t r = 0; r < ranks_; ++r) {
      const RankSummary& s = tally_.ranks[r];
      spdlog::info("rank {}: {} offset {} drift {:.3f} ppm; repair moved {} event(s), at most {}", r,
                   clocks_.method_of[r], Ns(OffsetAtStart(r)), clocks_.by_rank[r].drift * 1e6, s.moved,
                   Ns(s.max_shift));
    }
  }
  return OkStatus();
}

}  // namespace rp::clocksync::internal
