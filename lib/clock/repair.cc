#include "lib/clock/repair.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <span>
#include <utility>
#include <vector>

namespace rp::clock {
namespace {

using match::kNoEvent;
using window::Event;

// A constraint shared by several events: every dependent must end at least
// min-latency after the latest start of the sources (and of the parent
// gate's sources: prefix chains). One message is a gate with one source and
// one dependent; an all-to-all collective is one gate over all members.
// Events are kept in flat arrays (a window has one gate per message).
struct Gate {
  uint32_t sources_at = 0;     // sources: members[sources_at, dependents_at)
  uint32_t dependents_at = 0;  // dependents: members[dependents_at, end)
  uint32_t end = 0;
  int32_t parent = -1;
  int32_t child = -1;  // prefix chains: the next gate, whose parent this is
};

// Event -> gate lists, compressed: the gates of event e are
// gate_ids[at[e], at[e + 1]), in increasing gate order.
struct EventGates {
  std::vector<uint32_t> at;
  std::vector<int32_t> gate_ids;
  std::span<const int32_t> operator[](uint32_t e) const {
    return {gate_ids.data() + at[e], gate_ids.data() + at[e + 1]};
  }
};

}  // namespace

struct Constraints::Gates {
  std::vector<Gate> gates;
  std::vector<uint32_t> members;
  size_t message_gates = 0;  // gates [0, message_gates) are messages
  EventGates feeds;          // event -> gates it is a source of
  EventGates waits;          // event -> gates it depends on

  std::span<const uint32_t> sources(int32_t g) const {
    return {members.data() + gates[g].sources_at, members.data() + gates[g].dependents_at};
  }
  std::span<const uint32_t> dependents(int32_t g) const {
    return {members.data() + gates[g].dependents_at, members.data() + gates[g].end};
  }
};

namespace {

using Gates = Constraints::Gates;

// Appends gates one at a time: Source()s, then Dependent()s, then Finish().
class GateBuilder {
 public:
  explicit GateBuilder(Gates* out) : out_(*out) {
    out_.gates.clear();
    out_.members.clear();
    Begin();
  }

  void Source(uint32_t e) {
    if (e != kNoEvent) out_.members.push_back(e);
  }
  void Dependent(uint32_t e) {
    if (dependents_at_ < 0) dependents_at_ = static_cast<int64_t>(out_.members.size());
    if (e != kNoEvent) out_.members.push_back(e);
  }
  // The new gate's id, or -1 when it constrains nothing (then dropped).
  int32_t Finish(int32_t parent) {
    if (dependents_at_ < 0) dependents_at_ = static_cast<int64_t>(out_.members.size());
    const auto dependents_at = static_cast<uint32_t>(dependents_at_);
    const auto end = static_cast<uint32_t>(out_.members.size());
    if (end == dependents_at || (dependents_at == sources_at_ && parent < 0)) {
      out_.members.resize(sources_at_);
      Begin();
      return -1;
    }
    const int32_t id = static_cast<int32_t>(out_.gates.size());
    Gate& g = out_.gates.emplace_back();
    g.sources_at = sources_at_;
    g.dependents_at = dependents_at;
    g.end = end;
    g.parent = parent;
    if (parent >= 0) out_.gates[parent].child = id;
    Begin();
    return id;
  }

  // Builds the event -> gate lists once every gate is in.
  void Index(size_t events) {
    Invert(events, [](const Gate& g) { return std::pair(g.sources_at, g.dependents_at); }, &out_.feeds);
    Invert(events, [](const Gate& g) { return std::pair(g.dependents_at, g.end); }, &out_.waits);
  }

 private:
  void Begin() {
    sources_at_ = static_cast<uint32_t>(out_.members.size());
    dependents_at_ = -1;
  }
  template <typename Range>
  void Invert(size_t events, Range range, EventGates* index) {
    index->at.assign(events + 1, 0);
    for (const Gate& g : out_.gates) {
      const auto [begin, end] = range(g);
      for (uint32_t m = begin; m < end; ++m) ++index->at[out_.members[m] + 1];
    }
    for (size_t e = 0; e < events; ++e) index->at[e + 1] += index->at[e];
    index->gate_ids.resize(index->at[events]);
    std::vector<uint32_t> next(index->at.begin(), index->at.end() - 1);
    for (size_t id = 0; id < out_.gates.size(); ++id) {
      const auto [begin, end] = range(out_.gates[id]);
      for (uint32_t m = begin; m < end; ++m) index->gate_ids[next[out_.members[m]]++] = static_cast<int32_t>(id);
    }
  }

  Gates& out_;
  uint32_t sources_at_ = 0;
  int64_t dependents_at_ = -1;
};

void BuildGates(const window::Window& w, const match::Matching& matching, Gates* gates) {
  Gates& out = *gates;
  GateBuilder add(&out);
  for (const match::Message& m : matching.messages) {
    add.Source(m.send);
    add.Dependent(m.recv_done);
    add.Finish(-1);
  }
  out.message_gates = out.gates.size();
  for (const match::Collective& c : matching.collectives) {
    if (c.fn < 0) continue;
    const size_t n = c.entries.size();
    size_t root = n;
    for (size_t i = 0; i < n; ++i) {
      if (w.events[c.entries[i]].rank == c.root) root = i;
    }
    switch (c.kind) {
      case mpi::Collective::kAll:
        for (uint32_t e : c.entries) add.Source(e);
        for (uint32_t e : c.exits) add.Dependent(e);
        add.Finish(-1);
        break;
      case mpi::Collective::kRootOut:
        if (root < n) {
          add.Source(c.entries[root]);
          for (size_t i = 0; i < n; ++i) {
            if (i != root) add.Dependent(c.exits[i]);
          }
          add.Finish(-1);
        }
        break;
      case mpi::Collective::kRootIn:
        if (root < n) {
          for (size_t i = 0; i < n; ++i) {
            if (i != root) add.Source(c.entries[i]);
          }
          add.Dependent(c.exits[root]);
          add.Finish(-1);
        }
        break;
      case mpi::Collective::kPrefix: {
        int32_t previous = -1;
        for (size_t i = 1; i < n; ++i) {
          add.Source(c.entries[i - 1]);
          add.Dependent(c.exits[i]);
          previous = add.Finish(previous);
        }
        break;
      }
      default:
        break;  // neighbourhood collectives: the topology is not in the trace
    }
  }
  add.Index(w.events.size());
}

// The latest source start of gate g (its parent's included) at current times.
int64_t GateValue(const Gates& gates, const window::Window& w, int32_t g) {
  int64_t value = INT64_MIN;
  for (; g >= 0; g = gates.gates[g].parent) {
    for (uint32_t s : gates.sources(g)) value = std::max(value, w.events[s].t0);
  }
  return value;
}

}  // namespace

Constraints::Constraints() : gates_(std::make_unique<Gates>()) {}
Constraints::~Constraints() = default;

void Constraints::Build(const window::Window& window, const match::Matching& matching) {
  BuildGates(window, matching, gates_.get());
}

void Violations::Add(const Violations& o) {
  messages += o.messages;
  collectives += o.collectives;
  worst = std::max(worst, o.worst);
}

Violations CountViolations(const window::Window& w, const Constraints& constraints, int64_t min_latency) {
  Violations v;
  const Gates& gates = constraints.gates();
  for (size_t g = 0; g < gates.gates.size(); ++g) {
    const int64_t earliest = GateValue(gates, w, static_cast<int32_t>(g)) + min_latency;
    for (uint32_t d : gates.dependents(static_cast<int32_t>(g))) {
      if (w.events[d].ghost()) continue;  // its holder counts it
      const int64_t gap = earliest - w.events[d].t1;
      if (gap <= 0) continue;
      (g < gates.message_gates ? v.messages : v.collectives) += 1;
      v.worst = std::max(v.worst, gap);
    }
  }
  return v;
}

// The controlled-logical-clock forward pass. Each event is started (its
// start is final once the previous event of its rank has finished, and
// feeds the gates it is a source of) and then finished (its end waits for
// its gates and may jump). A blocking collective is both a source and a
// dependent of its own gate. The order ranks are taken in does not matter:
// an event's times depend only on its rank's earlier events and its gates'
// sources, all final once it is ready (and when none is ready, every order
// has processed the same events). Ghost events (a distributed repair) are
// started by their holders: their starts come in through StartGhost.
ForwardPass::ForwardPass(window::Window& w, const Constraints& constraints, int64_t min_latency,
                         std::vector<int64_t>& shift)
    : w_(w), gates_(constraints.gates()), min_latency_(min_latency), ranks_(w.by_rank.size()), shift_(shift),
      value_(gates_.gates.size(), INT64_MIN), waiting_(gates_.gates.size()), position_(ranks_, 0),
      queued_(ranks_, false), rank_of_(w.events.size()), jumps_(ranks_) {
  // Each gate's latest source start so far, and how many sources (and
  // parent) have yet to start (complete).
  for (size_t g = 0; g < gates_.gates.size(); ++g) {
    const Gate& gate = gates_.gates[g];
    waiting_[g] = static_cast<int32_t>(gate.dependents_at - gate.sources_at) + (gate.parent >= 0 ? 1 : 0);
  }
  if (shift_.size() < ranks_) shift_.resize(ranks_, 0);
  // Dense, so that offering a gate's dependents reads no event; -1 for a
  // ghost (its holder finishes it).
  for (size_t i = 0; i < w.events.size(); ++i) rank_of_[i] = w.events[i].ghost() ? -1 : w.events[i].rank;
  for (const auto& events : w.by_rank) remaining_ += events.size();
}

ForwardPass::~ForwardPass() = default;

void ForwardPass::Begin(const Started& started) {
  started_ = &started;
  for (size_t r = 0; r < ranks_; ++r) Start(r);
  started_ = nullptr;
}

void ForwardPass::Advance(const Started& started) {
  started_ = &started;
  while (!ready_ranks_.empty()) {
    const size_t r = ready_ranks_.back();
    ready_ranks_.pop_back();
    queued_[r] = false;
    Finish(r);
    Start(r);
  }
  started_ = nullptr;
}

ForwardPass::Blocked ForwardPass::Earliest() const {
  Blocked earliest;
  for (size_t q = 0; q < ranks_; ++q) {
    const int64_t e = NextEvent(q);
    if (e >= 0 && w_.events[e].t0 < earliest.t0) earliest = {w_.events[e].t0, static_cast<int64_t>(q)};
  }
  return earliest;
}

void ForwardPass::Force(size_t r, const Started& started) {
  started_ = &started;
  if (queued_[r]) {
    queued_[r] = false;
    ready_ranks_.erase(std::find(ready_ranks_.begin(), ready_ranks_.end(), r));
  }
  Finish(r);
  Start(r);
  started_ = nullptr;
}

void ForwardPass::StartGhost(uint32_t e, int64_t t0) {
  w_.events[e].t0 = t0;
  Feed(e);
}

int64_t ForwardPass::NextEvent(size_t r) const {
  return position_[r] < w_.by_rank[r].size() ? static_cast<int64_t>(w_.by_rank[r][position_[r]]) : int64_t{-1};
}

bool ForwardPass::Ready(uint32_t e) const {
  for (int32_t g : gates_.waits[e]) {
    if (waiting_[g] > 0) return false;
  }
  return true;
}

// Ranks whose started event can finish.
void ForwardPass::Offer(size_t r) {
  if (r >= ranks_) return;  // a ghost: its holder finishes it
  const int64_t e = NextEvent(r);
  if (e >= 0 && !queued_[r] && Ready(static_cast<uint32_t>(e))) {
    queued_[r] = true;
    ready_ranks_.push_back(r);
  }
}

void ForwardPass::CompleteGate(int32_t first) {
  completed_gates_.assign(1, first);
  while (!completed_gates_.empty()) {
    const int32_t g = completed_gates_.back();
    completed_gates_.pop_back();
    if (const int32_t child = gates_.gates[g].child; child >= 0) {
      value_[child] = std::max(value_[child], value_[g]);
      if (--waiting_[child] == 0) completed_gates_.push_back(child);
    }
    for (uint32_t d : gates_.dependents(g)) Offer(static_cast<size_t>(rank_of_[d]));  // -1: past every rank
  }
}

void ForwardPass::Feed(uint32_t e) {
  const int64_t t0 = w_.events[e].t0;
  for (int32_t g : gates_.feeds[e]) {
    value_[g] = std::max(value_[g], t0);
    if (--waiting_[g] == 0) CompleteGate(g);
  }
}

void ForwardPass::Start(size_t r) {
  const int64_t e = NextEvent(r);
  if (e < 0) return;
  // The rank's next event, likely far off in a window of many ranks, is
  // fetched while other ranks go on.
  if (position_[r] + 1 < w_.by_rank[r].size()) __builtin_prefetch(&w_.events[w_.by_rank[r][position_[r] + 1]]);
  w_.events[e].t0 += shift_[r];
  Feed(static_cast<uint32_t>(e));
  if (*started_ && !gates_.feeds[e].empty()) (*started_)(static_cast<uint32_t>(e));
  Offer(r);
}

// The end of rank r's started event: at least its gates' value plus the
// minimal latency; a jump shifts the rest of the rank.
void ForwardPass::Finish(size_t r) {
  const uint32_t e = static_cast<uint32_t>(NextEvent(r));
  Event& ev = w_.events[e];
  ev.t1 += shift_[r];
  int64_t required = INT64_MIN;
  for (int32_t g : gates_.waits[e]) {
    if (value_[g] != INT64_MIN) required = std::max(required, value_[g] + min_latency_);
  }
  if (required != INT64_MIN && ev.t1 < required) {
    const int64_t delta = required - ev.t1;
    jumps_[r].push_back(Jump{position_[r], delta, ev.t1});
    ev.t1 = required;
    shift_[r] += delta;
  }
  ++position_[r];
  --remaining_;
}

namespace {

// The backward amortisation: each jump spread over the time before it, at
// most max_slope fast, capped so that no moved send overtakes its receive.
void AmortizeJumps(window::Window& w, const Gates& gates, const RepairOptions& options,
                   const std::vector<std::vector<Jump>>& jumps) {
  // The earliest end each source may not pass: its gates' dependents' ends.
  std::vector<int64_t> gate_limit(gates.gates.size(), INT64_MAX);
  for (size_t g = 0; g < gates.gates.size(); ++g) {
    for (uint32_t d : gates.dependents(static_cast<int32_t>(g))) gate_limit[g] = std::min(gate_limit[g], w.events[d].t1);
  }
  // A prefix chain's sources also bound the chain's later dependents;
  // children come after their parents.
  for (size_t g = gates.gates.size(); g-- > 0;) {
    const int32_t parent = gates.gates[g].parent;
    if (parent >= 0) gate_limit[parent] = std::min(gate_limit[parent], gate_limit[g]);
  }
  for (size_t r = 0; r < jumps.size(); ++r) {
    const std::vector<uint32_t>& events = w.by_rank[r];
    // The walk back stops after the previous jump's event (or at the
    // window's first event): what the ramp has not reached by then is left
    // there, as a longer gap, so that no ramp runs faster than max_slope (a
    // ramp squeezed into a short stretch would stretch the calls in it by
    // up to the whole jump).
    size_t stop = 0;
    for (const Jump& jump : jumps[r]) {
      const int64_t end = jump.at;  // the ramp reaches the full jump here
      // rp-clocksync holds a run's times to a span of 2^61: a longer ramp
      // starts before any, and x - start below stays within 2^63.
      const double length = std::min(std::ceil(static_cast<double>(jump.delta) / options.max_slope), 0x1p61);
      const int64_t start = end - static_cast<int64_t>(length);
      const size_t first = stop;
      stop = jump.position + 1;
      if (end <= start) continue;
      const double span = static_cast<double>(end - start);
      auto ramp = [&](int64_t x) {
        // Multiplied first: delta (x - start) / span is then exact when whole.
        return static_cast<int64_t>(std::floor(static_cast<double>(jump.delta) * static_cast<double>(x - start) / span));
      };
      // Walk back from the jumping event: each time point may move by at
      // most the ramp, its own cap, and what the next point moved.
      int64_t allowed = jump.delta;
      for (size_t p = jump.position + 1; p-- > first;) {
        Event& ev = w.events[events[p]];
        if (p != jump.position) {
          if (ev.t1 < start) break;
          allowed = std::min(allowed, ramp(ev.t1));
          ev.t1 += std::max<int64_t>(0, allowed);
        }
        if (ev.t0 < start) break;
        int64_t cap = INT64_MAX;
        for (int32_t g : gates.feeds[events[p]]) cap = std::min(cap, gate_limit[g] - options.min_latency - ev.t0);
        allowed = std::min({allowed, ramp(ev.t0), cap});
        ev.t0 += std::max<int64_t>(0, allowed);
        if (allowed <= 0) break;
      }
    }
  }
}

}  // namespace

void Amortize(window::Window* window, const Constraints& constraints, const RepairOptions& options,
              const ForwardPass& pass) {
  if (options.amortize && options.max_slope > 0) AmortizeJumps(*window, constraints.gates(), options, pass.jumps());
}

std::vector<std::pair<int64_t, int64_t>> TimesOf(const window::Window& w) {
  std::vector<std::pair<int64_t, int64_t>> times(w.events.size());
  for (size_t i = 0; i < w.events.size(); ++i) times[i] = {w.events[i].t0, w.events[i].t1};
  return times;
}

std::vector<RankRepair> Moves(const window::Window& w, const std::vector<std::pair<int64_t, int64_t>>& before) {
  std::vector<RankRepair> ranks(w.by_rank.size());
  for (size_t i = 0; i < w.events.size(); ++i) {
    const Event& ev = w.events[i];
    if (ev.ghost()) continue;  // its holder counts it
    const int64_t moved = std::max(std::abs(ev.t0 - before[i].first), std::abs(ev.t1 - before[i].second));
    if (moved == 0) continue;
    RankRepair& rank = ranks[ev.rank];
    ++rank.moved;
    rank.max_shift = std::max(rank.max_shift, moved);
  }
  return ranks;
}

RepairResult Repair(window::Window* window, const Constraints& constraints, const RepairOptions& options,
                    std::vector<int64_t>* carried) {
  window::Window& w = *window;
  const std::vector<std::pair<int64_t, int64_t>> before = TimesOf(w);
  RepairResult result;
  ForwardPass pass(w, constraints, options.min_latency, *carried);
  const ForwardPass::Started none;
  pass.Begin(none);
  for (;;) {
    pass.Advance(none);
    if (pass.done()) break;
    // Every rank waits on another: the trace's dependencies form a cycle
    // (messages matched wrongly, a corrupt trace). Go on with the earliest.
    const ForwardPass::Blocked earliest = pass.Earliest();
    if (earliest.rank < 0) break;
    pass.Force(static_cast<size_t>(earliest.rank), none);
    ++result.cycles_broken;
  }
  Amortize(&w, constraints, options, pass);
  result.ranks = Moves(w, before);
  return result;
}

}  // namespace rp::clock
