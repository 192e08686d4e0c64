#include "lib/match/distributed.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>

#include "lib/match/matcher.h"

namespace rp::match {
namespace {

using internal::Matcher;
using internal::Operation;
using window::Event;

static_assert(std::is_trivially_copyable_v<Event>);

// What one process sends another for a window: a table of events, then
// the operations and calls that name them by their place in the table.
class Outbox {
 public:
  // The event's place in the table (added once).
  int64_t Event(const window::Window& w, uint32_t index) {
    if (index == kNoEvent) return -1;
    auto [it, added] = places_.try_emplace(index, static_cast<int64_t>(events_.size()));
    if (added) events_.push_back(index);
    return it->second;
  }
  void Send(const window::Window& w, const Operation& op) { sends_.push_back(Op(w, op)); }
  void Receive(const window::Window& w, const Operation& op) { receives_.push_back(Op(w, op)); }
  void Call(const window::Window& w, const Matcher::Call& c) {
    calls_.push_back({c.comm, c.k, Event(w, c.entry), Event(w, c.exit)});
  }
  const std::vector<uint32_t>& events() const { return events_; }

  std::string Pack(const window::Window& w) const {
    dist::Packer out;
    out.Put<uint64_t>(events_.size());
    for (uint32_t index : events_) {
      window::Event e = w.events[index];
      e.completed_begin = e.completed_count = e.resolved_begin = e.resolved_count = 0;
      e.started_begin = e.started_count = 0;
      e.line = window::kGhostLine;
      out.Put(e);
    }
    for (const std::vector<WireOp>* ops : {&sends_, &receives_}) {
      out.Put<uint64_t>(ops->size());
      for (const WireOp& op : *ops) out.Put(op);
    }
    out.Put<uint64_t>(calls_.size());
    for (const WireCall& c : calls_) out.Put(c);
    return std::move(out.bytes());
  }

  struct WireOp {
    int64_t comm, src, dst, tag, bytes, start, done;  // start, done: places in the table, -1 for none
  };
  struct WireCall {
    int64_t comm, k, entry, exit;
  };

 private:
  WireOp Op(const window::Window& w, const Operation& op) {
    return {std::get<0>(op.key), std::get<1>(op.key), std::get<2>(op.key), std::get<3>(op.key), op.bytes,
            Event(w, op.start), Event(w, op.done)};
  }
  std::map<uint32_t, int64_t> places_;
  std::vector<uint32_t> events_;
  std::vector<WireOp> sends_, receives_;
  std::vector<WireCall> calls_;
};

// The processes holding members of `comm` (all, when no comm record lists them).
std::vector<int> MemberProcesses(const Owners& owners, const window::Dictionary& dict, int64_t comm, int processes) {
  std::vector<int> out;
  auto it = dict.comm_ranks.find(comm);
  if (it == dict.comm_ranks.end()) {
    for (int p = 0; p < processes; ++p) out.push_back(p);
    return out;
  }
  for (int64_t rank : it->second) {
    const int p = owners.Of(rank);
    if (p >= 0) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

uint32_t LocalEvent(const window::Window& w, int64_t rank, int64_t seq) {
  if (rank < 0 || static_cast<size_t>(rank) >= w.by_rank.size()) return kNoEvent;
  const std::vector<uint32_t>& events = w.by_rank[rank];  // in seq order
  auto at = std::lower_bound(events.begin(), events.end(), seq,
                             [&](uint32_t e, int64_t s) { return w.events[e].seq < s; });
  return at != events.end() && w.events[*at].seq == seq ? *at : kNoEvent;
}

int Owners::Of(int64_t rank) const {
  for (size_t p = 0; p < groups.size(); ++p) {
    if (rank >= groups[p].first && rank <= groups[p].second) return static_cast<int>(p);
  }
  return -1;
}

Expected<Owners> ShareOwners(dist::Comm& comm, int64_t first, int64_t last) {
  dist::Packer mine;
  mine.Put(first);
  mine.Put(last);
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm.Allgather(mine.bytes()));
  Owners owners;
  for (const std::string& bytes : all) {
    dist::Unpacker in(bytes);
    const int64_t f = in.Get<int64_t>(), l = in.Get<int64_t>();
    if (in.bad()) return InputError("process groups: a short message");
    owners.groups.emplace_back(f, l);
  }
  return owners;
}

EventOrder EventOrder::Of(const window::Event& e) {
  return {e.phase == window::kNone ? -1 : e.phase, e.t0, e.rank, e.seq};
}

Expected<Matching> MatchAcross(dist::Comm& comm, const Owners& owners, const window::Dictionary& dict,
                               window::Window* window, Ghosts* ghosts, int64_t* bytes_sent) {
  window::Window& w = *window;
  const int me = comm.rank(), processes = comm.size();
  // Processes name each other's events by (rank, seq): a seq twice on a
  // rank (which one process reads with a warning) would make two events
  // one ghost.
  for (const std::vector<uint32_t>& events : w.by_rank) {
    for (size_t k = 1; k < events.size(); ++k) {
      const Event& e = w.events[events[k]];
      if (e.seq != w.events[events[k - 1]].seq) continue;
      return InputError("window " + std::to_string(w.index) + ": rank " + std::to_string(e.rank) + " has seq " +
                        std::to_string(e.seq) + " twice; the processes of a parallel stage name events by rank "
                        "and seq (the one-process stage reads this trace, with a warning)");
    }
  }
  Matcher matcher(w, dict);
  matcher.CountOnly([&owners, me](int64_t rank) { return owners.Of(rank) == me; });
  matcher.Walk();

  // What crosses to each other process.
  std::vector<Outbox> out(processes);
  for (const Operation& op : matcher.sends()) {
    const int p = owners.Of(std::get<2>(op.key));
    if (p >= 0 && p != me) out[p].Send(w, op);
  }
  for (const Operation& op : matcher.receives()) {
    if (op.start == kNoEvent || !op.resolved) continue;
    const int p = owners.Of(std::get<1>(op.key));
    if (p >= 0 && p != me) out[p].Receive(w, op);
  }
  std::map<int64_t, std::vector<int>> members;  // comm -> processes
  for (const Matcher::Call& c : matcher.Calls()) {
    auto it = members.find(c.comm);
    if (it == members.end()) it = members.emplace(c.comm, MemberProcesses(owners, dict, c.comm, processes)).first;
    for (int p : it->second) {
      if (p != me) out[p].Call(w, c);
    }
  }
  std::vector<std::string> packed(processes);
  const uint32_t local_events = static_cast<uint32_t>(w.events.size());
  std::vector<std::vector<int>> holders(local_events);
  for (int p = 0; p < processes; ++p) {
    if (p == me) continue;
    packed[p] = out[p].Pack(w);
    if (bytes_sent != nullptr) *bytes_sent += static_cast<int64_t>(packed[p].size());
    for (uint32_t index : out[p].events()) holders[index].push_back(p);
  }
  RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm.Alltoallv(packed));

  // The ghosts, each once, in the whole stream's order.
  struct Received {
    std::vector<uint32_t> ghost_of;  // table place -> ghost number
    std::vector<Outbox::WireOp> sends, receives;
    std::vector<Outbox::WireCall> calls;
  };
  std::vector<Received> received(processes);
  std::vector<Event> ghost_events;
  ghosts->index.clear();
  for (int p = 0; p < processes; ++p) {
    if (p == me || in[p].empty()) continue;
    dist::Unpacker from(in[p]);
    Received& r = received[p];
    const uint64_t events = from.Get<uint64_t>();
    for (uint64_t i = 0; i < events && !from.bad(); ++i) {
      const Event e = from.Get<Event>();
      auto [it, added] = ghosts->index.try_emplace({e.rank, e.seq}, static_cast<uint32_t>(ghost_events.size()));
      if (added) ghost_events.push_back(e);
      r.ghost_of.push_back(it->second);
    }
    for (std::vector<Outbox::WireOp>* ops : {&r.sends, &r.receives}) {
      const uint64_t n = from.Get<uint64_t>();
      for (uint64_t i = 0; i < n && !from.bad(); ++i) ops->push_back(from.Get<Outbox::WireOp>());
    }
    const uint64_t calls = from.Get<uint64_t>();
    for (uint64_t i = 0; i < calls && !from.bad(); ++i) r.calls.push_back(from.Get<Outbox::WireCall>());
    if (from.bad() || !from.done()) return InputError("process " + std::to_string(p) + " sent a damaged match message");
  }
  std::vector<uint32_t> ghost_order(ghost_events.size());
  for (uint32_t g = 0; g < ghost_order.size(); ++g) ghost_order[g] = g;
  std::sort(ghost_order.begin(), ghost_order.end(), [&](uint32_t a, uint32_t b) {
    return EventOrder::Of(ghost_events[a]) < EventOrder::Of(ghost_events[b]);
  });
  // Merged with this process's events (in input order, which is the
  // stream's): new indices for both (none to make without ghosts).
  std::vector<Event> merged;
  std::vector<uint32_t> local_index(local_events), ghost_index(ghost_events.size());
  if (ghost_events.empty()) {
    for (uint32_t i = 0; i < local_events; ++i) local_index[i] = i;
  } else {
    merged.reserve(w.events.size() + ghost_events.size());
    size_t i = 0, g = 0;
    while (i < local_events || g < ghost_order.size()) {
      const bool take_local =
          g == ghost_order.size() ||
          (i < local_events && EventOrder::Of(w.events[i]) < EventOrder::Of(ghost_events[ghost_order[g]]));
      if (take_local) {
        local_index[i] = static_cast<uint32_t>(merged.size());
        merged.push_back(w.events[i++]);
      } else {
        ghost_index[ghost_order[g]] = static_cast<uint32_t>(merged.size());
        merged.push_back(ghost_events[ghost_order[g++]]);
      }
    }
  }
  if (!ghost_events.empty()) {
    w.events.swap(merged);
    for (auto& rank : w.by_rank) {
      for (uint32_t& e : rank) e = local_index[e];
    }
    for (window::Line& line : w.lines) {
      if (line.event >= 0) line.event = static_cast<int32_t>(local_index[line.event]);
    }
    matcher.Remap(local_index);
    for (auto& [key, index] : ghosts->index) index = ghost_index[index];
  }
  ghosts->holders.assign(w.events.size(), {});
  for (uint32_t i = 0; i < local_events; ++i) ghosts->holders[local_index[i]] = std::move(holders[i]);

  // Their operations and calls, naming the ghosts' indices.
  for (int p = 0; p < processes; ++p) {
    const Received& r = received[p];
    auto event = [&](int64_t place) -> uint32_t {
      return place < 0 || static_cast<size_t>(place) >= r.ghost_of.size() ? kNoEvent : ghost_index[r.ghost_of[place]];
    };
    for (const Outbox::WireOp& op : r.sends) {
      matcher.AddRemoteSend(Operation{event(op.start), event(op.done), op.bytes, {op.comm, op.src, op.dst, op.tag}, true});
    }
    for (const Outbox::WireOp& op : r.receives) {
      matcher.AddRemoteReceive(Operation{event(op.start), event(op.done), 0, {op.comm, op.src, op.dst, op.tag}, true});
    }
    for (const Outbox::WireCall& c : r.calls) matcher.AddRemoteCall(c.comm, c.k, event(c.entry), event(c.exit));
  }
  return matcher.Finish();
}

void ExampleList::Add(int64_t window, const Matching& m) {
  // A process meets its windows in order: its first `most` are all it
  // can contribute to the run's first `most`.
  for (size_t i = 0; i < m.examples.size() && entries_.size() < most_; ++i) {
    entries_.push_back({window, i < m.example_order.size() ? m.example_order[i] : std::array<int64_t, 5>{}, m.examples[i]});
  }
}

void ExampleList::Pack(dist::Packer* out) const {
  out->Put<uint64_t>(entries_.size());
  for (const Entry& e : entries_) {
    out->Put(e.window);
    out->Put(e.order);
    out->PutString(e.text);
  }
}

Status ExampleList::AddPacked(dist::Unpacker* in) {
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    Entry e;
    e.window = in->Get<int64_t>();
    e.order = in->Get<std::array<int64_t, 5>>();
    e.text = in->GetString();
    entries_.push_back(std::move(e));
  }
  return in->bad() ? InputError("damaged examples") : OkStatus();
}

std::vector<std::string> ExampleList::Texts() const {
  std::vector<const Entry*> sorted;
  for (const Entry& e : entries_) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) {
    return std::tie(a->window, a->order) < std::tie(b->window, b->order);
  });
  std::vector<std::string> texts;
  for (size_t i = 0; i < sorted.size() && i < most_; ++i) texts.push_back(sorted[i]->text);
  return texts;
}

}  // namespace rp::match
