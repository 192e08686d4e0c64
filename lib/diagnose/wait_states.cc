#include "lib/diagnose/wait_states.h"

#include <algorithm>

namespace rp::diagnose {

std::string_view PatternName(Pattern p) {
  switch (p) {
    case Pattern::kNone: return "none";
    case Pattern::kLateSender: return "late_sender";
    case Pattern::kWrongOrder: return "wrong_order";
    case Pattern::kLateReceiver: return "late_receiver";
    case Pattern::kWaitNxN: return "wait_nxn";
    case Pattern::kWaitBarrier: return "wait_barrier";
    case Pattern::kLateBroadcast: return "late_broadcast";
    case Pattern::kEarlyReduce: return "early_reduce";
    case Pattern::kEarlyScan: return "early_scan";
  }
  return "?";
}

namespace {

Pattern CollectivePattern(const match::Collective& c) {
  switch (c.kind) {
    case mpi::Collective::kAll:
      return c.fn == mpi::kFn_MPI_Barrier || c.fn == mpi::kFn_MPI_Ibarrier ? Pattern::kWaitBarrier
                                                                           : Pattern::kWaitNxN;
    case mpi::Collective::kRootOut: return Pattern::kLateBroadcast;
    case mpi::Collective::kRootIn: return Pattern::kEarlyReduce;
    case mpi::Collective::kPrefix: return Pattern::kEarlyScan;
    default: return Pattern::kNone;
  }
}

}  // namespace

void WaitStates::Find(const graph::WindowGraph& wg) {
  const graph::Graph& g = wg.graph;
  const window::Window& w = wg.window;
  const size_t n = w.events.size();
  pattern.assign(n, Pattern::kNone);
  delayer.assign(n, match::kNoEvent);
  // A call waited for `partner` (an event) when that partner's entry is the
  // latest it depended on and it waited at all.
  auto waited_for = [&](uint32_t e, uint32_t partner) {
    return e != match::kNoEvent && partner != match::kNoEvent && !w.events[e].bounds_application() &&
           g.latest_partner(e) == graph::Entry(partner) && wg.times[e].wait_before > 0;
  };
  auto set = [&](uint32_t e, Pattern p, uint32_t partner) {
    pattern[e] = p;
    delayer[e] = partner;
  };
  // Messages: late senders, then which of them wait in the wrong order.
  std::vector<uint32_t> late;  // message indices
  for (uint32_t i = 0; i < wg.matching.messages.size(); ++i) {
    const match::Message& m = wg.matching.messages[i];
    if (waited_for(m.recv_done, m.send)) {
      set(m.recv_done, Pattern::kLateSender, m.send);
      late.push_back(i);
    } else if (waited_for(m.send_done, m.recv)) {
      set(m.send_done, Pattern::kLateReceiver, m.recv);
    }
  }
  if (!late.empty()) {
    // Per receiving rank, the messages by the position of the call that
    // completed them, latest first: a late sender is in the wrong order
    // when a message completed later was sent before its own.
    std::vector<uint32_t> position(n);
    for (const auto& events : w.by_rank) {
      for (uint32_t i = 0; i < events.size(); ++i) position[events[i]] = i;
    }
    struct Received {
      int32_t rank;
      uint32_t position;
      int64_t sent;
      uint32_t message;
    };
    std::vector<Received> received;
    for (uint32_t i = 0; i < wg.matching.messages.size(); ++i) {
      const match::Message& m = wg.matching.messages[i];
      if (m.recv_done == match::kNoEvent || m.send == match::kNoEvent) continue;
      received.push_back({w.events[m.recv_done].rank, position[m.recv_done], w.events[m.send].t0, i});
    }
    std::sort(received.begin(), received.end(), [](const Received& a, const Received& b) {
      return a.rank != b.rank ? a.rank < b.rank : a.position > b.position;
    });
    std::vector<int64_t> earliest_later(wg.matching.messages.size(), INT64_MAX);
    for (size_t i = 0; i < received.size();) {
      int64_t earliest = INT64_MAX;  // over later positions of this rank
      const int32_t rank = received[i].rank;
      while (i < received.size() && received[i].rank == rank) {
        size_t j = i;
        int64_t here = INT64_MAX;
        for (; j < received.size() && received[j].rank == rank && received[j].position == received[i].position; ++j) {
          earliest_later[received[j].message] = earliest;
          here = std::min(here, received[j].sent);
        }
        earliest = std::min(earliest, here);
        i = j;
      }
    }
    for (uint32_t i : late) {
      const match::Message& m = wg.matching.messages[i];
      if (earliest_later[i] < w.events[m.send].t0) pattern[m.recv_done] = Pattern::kWrongOrder;
    }
  }
  for (const match::Collective& c : wg.matching.collectives) {
    const Pattern p = CollectivePattern(c);
    if (p == Pattern::kNone) continue;
    for (uint32_t x : c.exits) {
      if (x == match::kNoEvent || pattern[x] != Pattern::kNone) continue;
      const uint32_t partner = g.latest_partner(x);
      if (partner == graph::kNoNode || g.is_hub(partner)) continue;
      const uint32_t p_event = graph::EventOf(partner);
      if (std::find(c.entries.begin(), c.entries.end(), p_event) == c.entries.end()) continue;
      if (waited_for(x, p_event)) set(x, p, p_event);
    }
  }
}

// Calls that only start an operation: they cannot wait for anyone.
bool OnlyStarts(const window::Event& ev) {
  switch (ev.category()) {
    case mpi::Category::kIsend:
    case mpi::Category::kIrecv:
    case mpi::Category::kSendInit:
    case mpi::Category::kRecvInit:
    case mpi::Category::kStart:
    case mpi::Category::kStartall:
      return true;
    default:
      return false;
  }
}

std::vector<std::pair<int32_t, int64_t>> SideComputation(const graph::Graph& g,
                                                         const profile::Attribution& attribution, uint32_t e) {
  const profile::ContextTree& tree = attribution.tree();
  const window::Window& w = g.window();
  std::vector<std::pair<int32_t, int64_t>> side;
  for (;;) {
    const profile::Attribution::Computation c = attribution.Before(e);
    for (const profile::Share* s = c.begin; s != c.end; ++s) {
      side.emplace_back(tree.node(tree.node(s->node).owner).function, s->ns);
    }
    const uint32_t before = g.previous(graph::Entry(e));
    if (before == graph::kNoNode || !OnlyStarts(w.events[graph::EventOf(before)])) return side;
    e = graph::EventOf(before);
  }
}

DelayCost DelayFrom(const std::vector<std::pair<int32_t, int64_t>>& delayer,
                    const std::vector<std::pair<int32_t, int64_t>>& waiter, int64_t wait) {
  // Computation by function over each side's interval, the delayer's minus
  // the waiter's.
  std::vector<std::pair<int32_t, int64_t>> diff = delayer;
  for (const auto& [function, ns] : waiter) diff.emplace_back(function, -ns);
  std::sort(diff.begin(), diff.end());
  DelayCost cost;
  int64_t delay = 0;
  for (size_t i = 0; i < diff.size();) {
    int64_t ns = 0;
    size_t j = i;
    for (; j < diff.size() && diff[j].first == diff[i].first; ++j) ns += diff[j].second;
    if (ns > 0) {
      cost.functions.emplace_back(diff[i].first, ns);
      delay += ns;
    }
    i = j;
  }
  if (delay > wait) {
    // More delay than waiting: each function's part of the wait.
    profile::Apportion apportion(wait, delay);
    for (auto& [function, ns] : cost.functions) ns = apportion.Next(ns);
    std::erase_if(cost.functions, [](const auto& f) { return f.second == 0; });
  } else {
    cost.propagated = wait - delay;
  }
  return cost;
}

DelayCost Delay(const graph::Graph& g, const profile::Attribution& attribution, uint32_t waiter, uint32_t delayer,
                int64_t wait) {
  return DelayFrom(SideComputation(g, attribution, delayer), SideComputation(g, attribution, waiter), wait);
}

void WaitSum::Add(int32_t waiter_rank, int32_t delayer_rank, int64_t wait, const DelayCost& cost) {
  ns += wait;
  ++count;
  propagated += cost.propagated;
  const size_t need = static_cast<size_t>(std::max(waiter_rank, delayer_rank)) + 1;
  if (waiting.size() < need) waiting.resize(need);
  if (delaying.size() < need) delaying.resize(need);
  waiting[waiter_rank] += wait;
  for (const auto& [function, ns_f] : cost.functions) {
    causes[function] += ns_f;
    delaying[delayer_rank] += ns_f;
  }
}

void WaitSum::Add(const WaitSum& o) {
  ns += o.ns;
  count += o.count;
  propagated += o.propagated;
  if (waiting.size() < o.waiting.size()) waiting.resize(o.waiting.size());
  if (delaying.size() < o.delaying.size()) delaying.resize(o.delaying.size());
  for (size_t r = 0; r < o.waiting.size(); ++r) waiting[r] += o.waiting[r];
  for (size_t r = 0; r < o.delaying.size(); ++r) delaying[r] += o.delaying[r];
  for (const auto& [function, ns_f] : o.causes) causes[function] += ns_f;
}

}  // namespace rp::diagnose
