#include "lib/match/matcher.h"

#include <algorithm>

namespace rp::match::internal {
namespace {

using mpi::Category;

constexpr size_t kExamples = 5;
constexpr size_t kAhead = 8;  // events prefetched ahead on walks by rank

constexpr uint32_t kSkipped = UINT32_MAX;  // GroupByKey: an item of no key

// The indices of items grouped by their key (key_of[i] < keys, or kSkipped
// to leave item i out), each group in index order: a counting sort, linear.
// Group k is [(*at)[k], (*at)[k + 1]) of the result.
std::vector<uint32_t> GroupByKey(const std::vector<uint32_t>& key_of, size_t keys, std::vector<uint32_t>* at) {
  at->assign(keys + 1, 0);
  for (uint32_t k : key_of) {
    if (k != kSkipped) ++(*at)[k + 1];
  }
  for (size_t k = 0; k < keys; ++k) (*at)[k + 1] += (*at)[k];
  std::vector<uint32_t> next(at->begin(), at->end() - 1), grouped((*at)[keys]);
  for (size_t i = 0; i < key_of.size(); ++i) {
    if (key_of[i] != kSkipped) grouped[next[key_of[i]]++] = static_cast<uint32_t>(i);
  }
  return grouped;
}

// Numbers for keys, 0, 1, ... in order of first appearance: open addressing
// over a mix of the key's fields, at most half full.
class KeyNumbers {
 public:
  uint32_t Of(const Key& key) {
    if (2 * (keys_.size() + 1) > slots_.size()) Grow();
    size_t slot = Hash(key) & mask_;
    for (; slots_[slot] != kEmpty; slot = (slot + 1) & mask_) {
      if (keys_[slots_[slot]] == key) return slots_[slot];
    }
    slots_[slot] = static_cast<uint32_t>(keys_.size());
    keys_.push_back(key);
    return slots_[slot];
  }
  size_t size() const { return keys_.size(); }
  const Key& key(uint32_t number) const { return keys_[number]; }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static size_t Hash(const Key& k) {
    const uint64_t h = static_cast<uint64_t>(std::get<0>(k)) * 0x9E3779B97F4A7C15ull ^
                       static_cast<uint64_t>(std::get<1>(k)) * 0xC2B2AE3D27D4EB4Full ^
                       static_cast<uint64_t>(std::get<2>(k)) * 0x165667B19E3779F9ull ^
                       static_cast<uint64_t>(std::get<3>(k)) * 0x27D4EB2F165667C5ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  void Grow() {
    slots_.assign(slots_.empty() ? 64 : slots_.size() * 2, kEmpty);
    mask_ = slots_.size() - 1;
    for (uint32_t n = 0; n < keys_.size(); ++n) {
      size_t slot = Hash(keys_[n]) & mask_;
      while (slots_[slot] != kEmpty) slot = (slot + 1) & mask_;
      slots_[slot] = n;
    }
  }

  std::vector<Key> keys_;
  std::vector<uint32_t> slots_;
  size_t mask_ = 0;
};

}  // namespace

Matching Matcher::Run() {
  Walk();
  return Finish();
}

void Matcher::Walk() {
  // Most events start at most one send or one receive (Isend, Irecv,
  // Waitall...): room for half of them each spares the vectors' growth.
  sends_.reserve(w_.events.size() / 2 + 1);
  receives_.reserve(w_.events.size() / 2 + 1);
  for (size_t rank = 0; rank < w_.by_rank.size(); ++rank) WalkRank(static_cast<int64_t>(rank));
}

Matching Matcher::Finish() {
  PairMessages();
  GroupCollectives();
  return std::move(out_);
}

void Matcher::Remap(const std::vector<uint32_t>& index) {
  auto remap = [&](uint32_t& e) {
    if (e != kNoEvent) e = index[e];
  };
  for (Operation& op : sends_) remap(op.start), remap(op.done);
  for (Operation& op : receives_) remap(op.start), remap(op.done);
  for (uint32_t& e : coll_entry_) remap(e);
  for (uint32_t& e : coll_exit_) remap(e);
}

void Matcher::AddRemoteCall(int64_t comm, int64_t k, uint32_t entry, uint32_t exit) {
  coll_calls_[{comm, k}].push_back(static_cast<int64_t>(coll_entry_.size()));
  coll_entry_.push_back(entry);
  coll_exit_.push_back(exit);
}

std::vector<Matcher::Call> Matcher::Calls() const {
  std::vector<Call> out;
  for (const auto& [instance, slots] : coll_calls_) {
    for (int64_t slot : slots) out.push_back(Call{instance.first, instance.second, coll_entry_[slot], coll_exit_[slot]});
  }
  return out;
}

void Matcher::Example(const std::string& text, const std::array<int64_t, 5>& order) {
  if (out_.examples.size() >= kExamples) return;
  out_.examples.push_back(text);
  out_.example_order.push_back(order);
}

int64_t Matcher::AddSend(uint32_t e, int64_t comm, int64_t src, int64_t dst, int64_t tag, int64_t bytes, bool blocking) {
  Operation op{e, blocking ? e : kNoEvent, bytes, Key{comm, src, dst, tag}, true};
  sends_.push_back(op);
  return static_cast<int64_t>(sends_.size()) - 1;
}

int64_t Matcher::AddReceive(uint32_t e, int64_t comm, int64_t src, int64_t dst, int64_t tag, bool blocking) {
  Operation op{e, blocking ? e : kNoEvent, 0, Key{comm, src, dst, tag}, src >= 0 && tag >= 0};
  receives_.push_back(op);
  return static_cast<int64_t>(receives_.size()) - 1;
}

// Completing a request: its operation ends here; a receive's status may
// name the source and tag a wildcard posting left open.
void Matcher::Complete(const Event& e, uint32_t index, int64_t id) {
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

void Matcher::Start(uint32_t index, int64_t rank, Request& r) {
  if (r.is_send && r.peer != -2) {
    r.op = AddSend(index, r.comm, rank, r.peer, r.tag, r.bytes, false);
  } else if (r.is_recv && r.peer != -2) {
    r.op = AddReceive(index, r.comm, r.peer, rank, r.tag, false);
  } else {
    r.op = -1;
  }
}

void Matcher::WalkRank(int64_t rank) {
  requests_.Clear();
  messages_.Clear();
  // Persistent requests made in an earlier window.
  auto inherited = std::lower_bound(w_.inherited.begin(), w_.inherited.end(), rank,
                                    [](const window::Window::Persistent& p, int64_t r) { return p.rank < r; });
  for (; inherited != w_.inherited.end() && inherited->rank == rank; ++inherited) {
    const window::Window::Persistent& p = *inherited;
    requests_.Get(p.id) = Request{true, p.send, !p.send, false, p.comm, p.peer, p.tag, p.bytes, -1};
  }
  const std::vector<uint32_t>& events = w_.by_rank[rank];
  for (size_t i = 0; i < events.size(); ++i) {
    // A rank's events lie far apart in a window of many ranks: fetched
    // ahead, they are not each a cache miss.
    if (i + kAhead < events.size()) __builtin_prefetch(&w_.events[events[i + kAhead]]);
    const uint32_t index = events[i];
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
      case Category::kCancel:
        // A cancelled receive matched nothing (why programs cancel): it
        // must not take a later message of its key. (Were the cancel too
        // late, that message shows as a send without a receive.)
        if (e.req != kNoId) {
          Request* r = requests_.Find(e.req);
          if (r != nullptr && r->is_recv && r->op >= 0) {
            receives_[r->op].start = kNoEvent;
            r->op = -1;
          }
        }
        break;
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

// Sends and receives of one key in posting order (MPI's non-overtaking
// rule): the k-th send of a key is paired with its k-th receive. Each
// operation gets its key's number from a hash table; both lists are then
// bucketed by number, keeping posting order, in linear time.
void Matcher::PairMessages() {
  KeyNumbers numbers;
  std::vector<uint32_t> send_key(sends_.size()), receive_key(receives_.size(), kSkipped);
  for (size_t i = 0; i < sends_.size(); ++i) send_key[i] = numbers.Of(sends_[i].key);
  for (size_t i = 0; i < receives_.size(); ++i) {
    const Operation& op = receives_[i];
    if (op.start == kNoEvent) continue;
    if (!op.resolved) {
      ++out_.unresolved_receives;
      continue;
    }
    receive_key[i] = numbers.Of(op.key);
  }
  const size_t keys = numbers.size();
  out_.messages.reserve(std::min(sends_.size(), receives_.size()));
  std::vector<uint32_t> send_at, receive_at;
  const std::vector<uint32_t> sends = GroupByKey(send_key, keys, &send_at);
  const std::vector<uint32_t> receives = GroupByKey(receive_key, keys, &receive_at);
  std::vector<uint32_t> uneven;  // keys with more sends than receives, or fewer
  for (size_t k = 0; k < keys; ++k) {
    const uint32_t s = send_at[k], s_count = send_at[k + 1] - s;
    const uint32_t r = receive_at[k], r_count = receive_at[k + 1] - r;
    for (uint32_t i = 0; i < s_count && i < r_count; ++i) {
      const Operation& send = sends_[sends[s + i]];
      const Operation& recv = receives_[receives[r + i]];
      out_.messages.push_back(Message{send.start, send.done, recv.start, recv.done, send.bytes});
    }
    if (!Counts(std::get<2>(numbers.key(static_cast<uint32_t>(k))))) continue;  // where its destination is
    if (s_count > r_count) out_.unmatched_sends += s_count - r_count;
    if (r_count > s_count) out_.unmatched_receives += r_count - s_count;
    if (s_count != r_count) uneven.push_back(static_cast<uint32_t>(k));
  }
  // Examples in key order, keys no send has last.
  auto count = [](const std::vector<uint32_t>& at, uint32_t k) { return at[k + 1] - at[k]; };
  std::sort(uneven.begin(), uneven.end(), [&](uint32_t a, uint32_t b) {
    return std::pair(count(send_at, a) == 0, numbers.key(a)) < std::pair(count(send_at, b) == 0, numbers.key(b));
  });
  auto field = [](int64_t v) { return v == kNone ? std::string("?") : std::to_string(v); };
  for (uint32_t k : uneven) {
    if (out_.examples.size() >= kExamples) break;
    const Key& key = numbers.key(k);
    const std::string pair = "comm " + field(std::get<0>(key)) + ", " + field(std::get<1>(key)) + " -> " +
                             field(std::get<2>(key)) + ", tag " + field(std::get<3>(key));
    const uint32_t s_count = count(send_at, k), r_count = count(receive_at, k);
    const std::array<int64_t, 5> order{s_count == 0, std::get<0>(key), std::get<1>(key), std::get<2>(key),
                                       std::get<3>(key)};
    if (s_count > r_count) {
      for (uint32_t i = r_count; i < s_count && out_.examples.size() < kExamples; ++i) {
        Example("send without receive: " + pair, order);
      }
    } else {
      Example("receive without send: " + pair, order);
    }
  }
  SortBySend(&out_.messages);
}

// Deterministic order: by the send's event index, then the receive's
// (then the rest, for Startall pairs that share both events). A
// counting sort over the window's events (linear; most events start at
// most one send), then the rare runs of one send (MPI_Startall) by receive.
void Matcher::SortBySend(std::vector<Message>* messages) {
  std::vector<uint32_t> send_of(messages->size()), at;
  for (size_t i = 0; i < messages->size(); ++i) send_of[i] = (*messages)[i].send;
  std::vector<Message> sorted;
  sorted.reserve(messages->size());
  for (uint32_t i : GroupByKey(send_of, w_.events.size(), &at)) sorted.push_back((*messages)[i]);
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

void Matcher::GroupCollectives() {
  for (auto& [instance, slots] : coll_calls_) {
    Collective c;
    c.comm = instance.first;
    // Its function and root as the lowest rank calls it (the first walked).
    int64_t first = slots.front();
    for (int64_t slot : slots) {
      if (w_.events[coll_entry_[slot]].rank < w_.events[coll_entry_[first]].rank) first = slot;
    }
    const Event& lowest = w_.events[coll_entry_[first]];
    c.fn = lowest.fn;
    c.root = lowest.root == kNone ? -1 : lowest.root;
    // Members in communicator rank order, as the comm record lists them;
    // ranks it does not list (or all, without one) last, by rank.
    const std::vector<int32_t>* position = Positions(c.comm);
    std::vector<std::tuple<int32_t, int32_t, int64_t>> members;  // (position, rank, slot)
    members.reserve(slots.size());
    for (int64_t slot : slots) {
      const int32_t rank = w_.events[coll_entry_[slot]].rank;
      const size_t r = static_cast<size_t>(rank);
      members.emplace_back(position != nullptr && r < position->size() ? (*position)[r] : INT32_MAX, rank, slot);
    }
    if (!std::is_sorted(members.begin(), members.end())) std::sort(members.begin(), members.end());
    c.kind = lowest.collective();
    if (std::all_of(slots.begin(), slots.end(),
                    [&](int64_t slot) { return w_.events[coll_entry_[slot]].MovedNothingAnywhere(); })) {
      c.kind = mpi::Collective::kNone;
    }
    if (const int64_t size = dict_.CommSize(c.comm);
        size > 0 && static_cast<int64_t>(members.size()) != size && Counts(lowest.rank)) {
      ++out_.incomplete_collectives;
    }
    for (const auto& [at, rank, slot] : members) {
      c.entries.push_back(coll_entry_[slot]);
      c.exits.push_back(coll_exit_[slot]);
      if (w_.events[coll_entry_[slot]].fn != c.fn && Counts(rank)) ++out_.mismatched_collectives;
    }
    out_.collectives.push_back(std::move(c));
  }
  std::sort(out_.collectives.begin(), out_.collectives.end(), [](const Collective& a, const Collective& b) {
    return a.entries.front() < b.entries.front();
  });
}

// Each world rank's position in a communicator (INT32_MAX: not a member),
// or null if no comm record lists its members. Built once per window.
const std::vector<int32_t>* Matcher::Positions(int64_t comm) {
  auto members = dict_.comm_ranks.find(comm);
  if (members == dict_.comm_ranks.end()) return nullptr;
  auto [it, inserted] = positions_.try_emplace(comm);
  if (inserted) {
    const std::vector<int64_t>& ranks = members->second;
    int64_t most = -1;
    for (int64_t r : ranks) most = std::max(most, r);
    it->second.assign(static_cast<size_t>(most + 1), INT32_MAX);
    for (size_t i = ranks.size(); i-- > 0;) {  // the first listing of a rank counts
      if (ranks[i] >= 0) it->second[ranks[i]] = static_cast<int32_t>(i);
    }
  }
  return &it->second;
}

}  // namespace rp::match::internal
