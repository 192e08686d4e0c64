#include "lib/match/match.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "lib/base/id_table.h"

namespace rp::match {
namespace {

using mpi::Category;
using window::Event;
using window::kNone;
using window::kNoId;

constexpr size_t kExamples = 5;

// (communicator, source, destination, tag)
using Key = std::tuple<int64_t, int64_t, int64_t, int64_t>;

struct Operation {
  uint32_t start = kNoEvent;
  uint32_t done = kNoEvent;
  int64_t bytes = 0;
  Key key;
  bool resolved = true;  // the key is known (not a wildcard awaiting its status)
};

// A rank's requests while walking its events: what completing each means.
struct Request {
  bool persistent = false;
  bool is_send = false, is_recv = false, is_coll = false;
  int64_t comm = kNone, peer = kNone, tag = kNone, bytes = 0;
  int64_t op = -1;    // index of the active operation (sends_/receives_) or collective slot
};

class Matcher {
 public:
  Matcher(const window::Window& w, const window::Dictionary& dict) : w_(w), dict_(dict) {}

  Matching Run() {
    for (size_t rank = 0; rank < w_.by_rank.size(); ++rank) WalkRank(static_cast<int64_t>(rank));
    PairMessages();
    GroupCollectives();
    return std::move(out_);
  }

 private:
  void Example(const std::string& text) {
    if (out_.examples.size() < kExamples) out_.examples.push_back(text);
  }

  int64_t AddSend(uint32_t e, int64_t comm, int64_t src, int64_t dst, int64_t tag, int64_t bytes, bool blocking) {
    Operation op{e, blocking ? e : kNoEvent, bytes, Key{comm, src, dst, tag}, true};
    sends_.push_back(op);
    return static_cast<int64_t>(sends_.size()) - 1;
  }

  int64_t AddReceive(uint32_t e, int64_t comm, int64_t src, int64_t dst, int64_t tag, bool blocking) {
    Operation op{e, blocking ? e : kNoEvent, 0, Key{comm, src, dst, tag}, src >= 0 && tag >= 0};
    receives_.push_back(op);
    return static_cast<int64_t>(receives_.size()) - 1;
  }

  // Completing a request: its operation ends here; a receive's status may
  // name the source and tag a wildcard posting left open.
  void Complete(const Event& e, uint32_t index, int64_t id) {
    Request* found = requests_.Find(id);
    if (found == nullptr) return;
    Request& r = *found;
    if (r.op >= 0) {
      if (r.is_send) sends_[r.op].done = index;
      if (r.is_recv) {
        Operation& op = receives_[r.op];
        op.done = index;
        for (uint32_t i = 0; i < e.resolved_count; ++i) {
          const trace::Completion& c = w_.resolved[e.resolved_begin + i];
          if (c.req != id) continue;
          std::get<1>(op.key) = c.peer;
          std::get<3>(op.key) = c.tag;
        }
        op.resolved = std::get<1>(op.key) >= 0 && std::get<3>(op.key) >= 0;
        if (std::get<1>(op.key) == -2) op.start = kNoEvent;  // MPI_PROC_NULL after all
      }
      if (r.is_coll) coll_exit_[r.op] = index;
    }
    r.op = -1;
    if (!r.persistent) requests_.Erase(id);
  }

  void Start(uint32_t index, int64_t rank, Request& r) {
    if (r.is_send && r.peer != -2) {
      r.op = AddSend(index, r.comm, rank, r.peer, r.tag, r.bytes, false);
    } else if (r.is_recv && r.peer != -2) {
      r.op = AddReceive(index, r.comm, r.peer, rank, r.tag, false);
    } else {
      r.op = -1;
    }
  }

  void WalkRank(int64_t rank) {
    requests_.Clear();
    messages_.Clear();
    for (uint32_t index : w_.by_rank[rank]) {
      const Event& e = w_.events[index];
      const mpi::Function* f = e.function();
      if (f == nullptr) continue;
      const bool real_peer = e.peer != kNone && e.peer != -2;
      switch (f->category) {
        case Category::kSend:
          if (real_peer) AddSend(index, e.comm, rank, e.peer, e.tag, e.bytes, true);
          break;
        case Category::kRecv:
          if (real_peer) AddReceive(index, e.comm, e.peer, rank, e.tag, true);
          break;
        case Category::kSendrecv:
          if (real_peer) AddSend(index, e.comm, rank, e.peer, e.tag, e.bytes, true);
          if (e.rpeer != kNone && e.rpeer != -2) AddReceive(index, e.comm, e.rpeer, rank, e.rtag, true);
          break;
        case Category::kIsend:
        case Category::kIrecv:
        case Category::kSendInit:
        case Category::kRecvInit: {
          if (e.req == kNoId) break;
          const bool send = f->category == Category::kIsend || f->category == Category::kSendInit;
          const bool persistent = f->category == Category::kSendInit || f->category == Category::kRecvInit;
          Request& r = requests_.Get(e.req);
          r = Request{persistent, send, !send, false, e.comm, e.peer, e.tag, e.bytes, -1};
          if (!persistent) Start(index, rank, r);
          break;
        }
        case Category::kStart:
        case Category::kStartall: {
          auto start = [&](int64_t id) {
            if (Request* r = requests_.Find(id)) Start(index, rank, *r);
          };
          if (e.req != kNoId) start(e.req);
          for (uint32_t i = 0; i < e.started_count; ++i) start(w_.ids[e.started_begin + i]);
          break;
        }
        case Category::kProbe:
          // A matched probe dequeues its message: the receive is posted here.
          if (e.msg != kNoId && real_peer) {
            messages_.Get(e.msg) = AddReceive(index, e.comm, e.peer, rank, e.tag, false);
          }
          break;
        case Category::kMrecv: {
          const int64_t* probed = e.msg == kNoId ? nullptr : messages_.Find(e.msg);
          const int64_t op = probed == nullptr ? -1 : *probed;
          if (probed != nullptr) messages_.Erase(e.msg);
          if (op < 0) break;
          if (f->nonblocking && e.req != kNoId) {
            requests_.Get(e.req) = Request{false, false, true, false, e.comm, e.peer, e.tag, 0, op};
          } else {
            receives_[op].done = index;
          }
          break;
        }
        case Category::kColl: {
          if (e.comm == kNone) break;
          const int64_t k = coll_count_[{rank, e.comm}]++;
          const int64_t slot = static_cast<int64_t>(coll_entry_.size());
          coll_entry_.push_back(index);
          coll_exit_.push_back(f->nonblocking ? kNoEvent : index);
          coll_calls_[{e.comm, k}].push_back(slot);
          if (f->nonblocking && e.req != kNoId) {
            requests_.Get(e.req) = Request{false, false, false, true, e.comm, kNone, kNone, 0, slot};
          }
          break;
        }
        default:
          break;
      }
      for (uint32_t i = 0; i < e.completed_count; ++i) Complete(e, index, w_.ids[e.completed_begin + i]);
    }
  }

  // Sends and receives of one key pair in posting order (MPI's
  // non-overtaking rule): both lists are sorted by key, stably, and walked
  // side by side.
  void PairMessages() {
    std::vector<uint32_t> sends, receives;
    sends.reserve(sends_.size());
    for (size_t i = 0; i < sends_.size(); ++i) sends.push_back(static_cast<uint32_t>(i));
    for (size_t i = 0; i < receives_.size(); ++i) {
      const Operation& op = receives_[i];
      if (op.start == kNoEvent) continue;
      if (!op.resolved) {
        ++out_.unresolved_receives;
        continue;
      }
      receives.push_back(static_cast<uint32_t>(i));
    }
    auto by_key = [](const std::vector<Operation>& ops) {
      return [ops = &ops](uint32_t a, uint32_t b) { return (*ops)[a].key < (*ops)[b].key; };
    };
    std::stable_sort(sends.begin(), sends.end(), by_key(sends_));
    std::stable_sort(receives.begin(), receives.end(), by_key(receives_));
    auto field = [](int64_t v) { return v == kNone ? std::string("?") : std::to_string(v); };
    auto describe = [&](const Key& k) {
      return "comm " + field(std::get<0>(k)) + ", " + field(std::get<1>(k)) + " -> " + field(std::get<2>(k)) +
             ", tag " + field(std::get<3>(k));
    };
    // The end of the run of equal keys starting at `at`.
    auto run_end = [](const std::vector<uint32_t>& list, const std::vector<Operation>& ops, size_t at) {
      size_t end = at + 1;
      while (end < list.size() && ops[list[end]].key == ops[list[at]].key) ++end;
      return end;
    };
    std::vector<std::pair<Key, size_t>> lone_receives;  // keys no send has: reported last
    size_t s = 0, r = 0;
    while (s < sends.size() || r < receives.size()) {
      if (s == sends.size() || (r < receives.size() && receives_[receives[r]].key < sends_[sends[s]].key)) {
        const size_t end = run_end(receives, receives_, r);
        lone_receives.emplace_back(receives_[receives[r]].key, end - r);
        r = end;
        continue;
      }
      const Key& key = sends_[sends[s]].key;
      const size_t s_end = run_end(sends, sends_, s);
      const size_t r_end = r < receives.size() && receives_[receives[r]].key == key ? run_end(receives, receives_, r) : r;
      for (size_t k = 0; s + k < s_end; ++k) {
        const Operation& send = sends_[sends[s + k]];
        if (r + k >= r_end) {
          ++out_.unmatched_sends;
          Example("send without receive: " + describe(key));
          continue;
        }
        const Operation& recv = receives_[receives[r + k]];
        out_.messages.push_back(Message{send.start, send.done, recv.start, recv.done, send.bytes});
      }
      if (r_end - r > s_end - s) {
        out_.unmatched_receives += static_cast<int64_t>((r_end - r) - (s_end - s));
        Example("receive without send: " + describe(key));
      }
      s = s_end;
      r = r_end;
    }
    for (const auto& [key, count] : lone_receives) {
      out_.unmatched_receives += static_cast<int64_t>(count);
      Example("receive without send: " + describe(key));
    }
    SortBySend(&out_.messages);
  }

  // Deterministic order: by the send's event index, then the receive's
  // (then the rest, for Startall pairs that share both events). A
  // counting sort over the window's events (linear; most events start at
  // most one send), then the rare runs of one send (MPI_Startall) by receive.
  void SortBySend(std::vector<Message>* messages) {
    std::vector<uint32_t> start(w_.events.size() + 1, 0);
    for (const Message& m : *messages) ++start[m.send + 1];
    for (size_t e = 1; e < start.size(); ++e) start[e] += start[e - 1];
    std::vector<Message> sorted(messages->size());
    for (const Message& m : *messages) sorted[start[m.send]++] = m;
    for (size_t i = 0; i < sorted.size();) {
      size_t end = i + 1;
      while (end < sorted.size() && sorted[end].send == sorted[i].send) ++end;
      if (end - i > 1) {
        std::sort(sorted.begin() + i, sorted.begin() + end, [](const Message& a, const Message& b) {
          return std::tie(a.recv, a.recv_done, a.send_done, a.bytes) < std::tie(b.recv, b.recv_done, b.send_done, b.bytes);
        });
      }
      i = end;
    }
    messages->swap(sorted);
  }

  void GroupCollectives() {
    for (auto& [instance, slots] : coll_calls_) {
      Collective c;
      c.comm = instance.first;
      const Event& first = w_.events[coll_entry_[slots.front()]];
      c.fn = first.fn;
      c.root = first.root == kNone ? -1 : first.root;
      // Members in communicator rank order: the comm record lists them.
      auto members = dict_.comm_ranks.find(c.comm);
      std::vector<int64_t> order(slots.begin(), slots.end());
      if (members != dict_.comm_ranks.end()) {
        auto position = [&](int64_t slot) {
          const int64_t rank = w_.events[coll_entry_[slot]].rank;
          auto at = std::find(members->second.begin(), members->second.end(), rank);
          return at - members->second.begin();
        };
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return position(a) < position(b); });
      }
      for (int64_t slot : order) {
        c.entries.push_back(coll_entry_[slot]);
        c.exits.push_back(coll_exit_[slot]);
        if (w_.events[coll_entry_[slot]].fn != c.fn) ++out_.mismatched_collectives;
      }
      out_.collectives.push_back(std::move(c));
    }
    std::sort(out_.collectives.begin(), out_.collectives.end(), [](const Collective& a, const Collective& b) {
      return a.entries.front() < b.entries.front();
    });
  }

  const window::Window& w_;
  const window::Dictionary& dict_;
  Matching out_;
  std::vector<Operation> sends_, receives_;
  IdTable<Request> requests_;   // the walked rank's requests, by id
  IdTable<int64_t> messages_;   // its matched-probe message ids -> receive op
  std::map<std::pair<int64_t, int64_t>, int64_t> coll_count_;             // (rank, comm) -> calls
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> coll_calls_;  // (comm, k) -> slots
  std::vector<uint32_t> coll_entry_, coll_exit_;
};

}  // namespace

Matching Match(const window::Window& window, const window::Dictionary& dict) {
  return Matcher(window, dict).Run();
}

}  // namespace rp::match
