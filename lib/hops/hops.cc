#include "lib/hops/hops.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <set>

namespace rp::hops {
namespace {

uint64_t PathOf(uint64_t path) { return path; }
template <typename T>
uint64_t PathOf(const T& entry) {
  return entry.path;
}

// Takes `path` out of the list of `key` in a table of lists (packets
// inside devices, in flight, orphans), and the list out when empty.
template <typename Table>
void EraseFrom(Table& table, const typename Table::key_type& key, uint64_t path) {
  auto it = table.find(key);
  if (it == table.end()) return;
  std::erase_if(it->second, [path](const auto& entry) { return PathOf(entry) == path; });
  if (it->second.empty()) table.erase(it);
}

}  // namespace

bool Topology::Add(const trace::LinkRecord& link) {
  const int32_t from = Intern(link.device);
  const int32_t to = Intern(link.peer);
  Link l;
  l.peer = to;
  l.peer_port = link.peer_port;
  l.rate = link.has_rate() ? link.rate : 0;
  l.delay = link.has_delay() ? link.delay : 0;
  auto [it, added] = links_.emplace(std::make_pair(from, link.port), l);
  by_port_.emplace(it->first, &it->second);
  return added || (it->second.peer == to && it->second.peer_port == l.peer_port);
}

int32_t Topology::Find(std::string_view device) const {
  auto it = index_.find(device);
  return it == index_.end() ? -1 : it->second;
}

int32_t Topology::Intern(std::string_view device) {
  auto it = index_.find(device);
  if (it != index_.end()) return it->second;
  index_.emplace(std::string(device), static_cast<int32_t>(names_.size()));
  names_.emplace_back(device);
  return static_cast<int32_t>(names_.size() - 1);
}

const Link* Topology::From(int32_t device, int64_t port) const {
  auto it = by_port_.find({device, port});
  return it == by_port_.end() ? nullptr : it->second;
}

Direction DirectionOf(std::string_view kind) {
  if (kind == "host_send" || kind == "switch_in" || kind == "nic_rx") return Direction::kIn;
  if (kind == "nic_tx" || kind == "switch_out" || kind == "host_recv") return Direction::kOut;
  if (kind == "drop") return Direction::kDrop;
  return Direction::kInvalid;
}

const char* Path::Status() const {
  if (loop) return "loop";
  if (dropped) return "dropped";
  if (gap || !from_host || !to_host) return "gap";
  return "complete";
}

size_t Matcher::KeyHash::operator()(const Key& k) const {
  uint64_t h = static_cast<uint64_t>(k.id) * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.device)) << 40) ^
       (static_cast<uint64_t>(static_cast<uint32_t>(k.src)) << 20) ^ static_cast<uint32_t>(k.dst);
  return h * 0xBF58476D1CE4E5B9ull;
}

Matcher::Matcher(Topology* topology, const Config& config, std::function<void(Path&&)> done)
    : topology_(topology), config_(config), done_(std::move(done)) {}

Matcher::~Matcher() = default;

int32_t Matcher::HostIndex(std::string_view host) {
  auto it = host_index_.find(host);
  if (it != host_index_.end()) return it->second;
  host_index_.emplace(std::string(host), static_cast<int32_t>(hosts_.size()));
  hosts_.emplace_back(host);
  return static_cast<int32_t>(hosts_.size() - 1);
}

void Matcher::Add(const trace::NetRecord& r) {
  ++counts_.tuples;
  Tuple x;
  x.device = topology_->Find(r.device);
  if (x.device < 0) {
    ++counts_.unknown;  // no link names it: its next hop cannot be known
    return;
  }
  x.direction = DirectionOf(r.kind);
  x.host_send = r.kind == "host_send";
  x.host_recv = r.kind == "host_recv";
  x.src = HostIndex(r.src);
  x.dst = HostIndex(r.dst);
  x.port = r.has_port() ? r.port : -1;
  x.id = r.id;
  x.size = r.has_size() ? r.size : -1;
  if (r.t < 0 || r.t > kLatestTime) {
    ++counts_.unknown;  // not a time any clock gives: skipped
    return;
  }
  x.t = r.t;
  x.order = static_cast<uint64_t>(counts_.tuples);
  if (static_cast<size_t>(x.device) < config_.offsets.size()) x.t -= config_.offsets[x.device];
  if (r.has_rank()) x.rank = r.rank;
  if (r.has_site()) x.site = r.site;
  if (r.has_seq()) x.seq = r.seq;
  if (x.t < released_) {
    // Older than the reorder window allows: matched as it comes.
    ++counts_.backwards;
    Process(x);
    return;
  }
  newest_ = std::max(newest_, x.t);
  if (pending_.empty() || pending_.back().t <= x.t) {
    pending_.push_back(x);
  } else {
    // Input order breaks ties: after every tuple of the same time.
    auto at = std::upper_bound(pending_.begin(), pending_.end(), x.t,
                               [](int64_t t, const Tuple& y) { return t < y.t; });
    pending_.insert(at, x);
  }
  while (!pending_.empty() && pending_.front().t < newest_ - config_.window) {
    Release(pending_.front());
    pending_.pop_front();
  }
}

void Matcher::Release(const Tuple& x) {
  released_ = x.t;
  Process(x);
}

void Matcher::Process(const Tuple& x) {
  Expire(x.t);
  // The same tuple twice (a log drained twice): once is enough.
  const Key key{x.device, x.src, x.dst, x.id};
  if (x.t != seen_t_) {
    seen_now_.clear();
    seen_t_ = x.t;
  }
  if (!seen_now_.insert(Seen{key, x.direction, x.port}).second) {
    ++counts_.duplicates;
    return;
  }
  switch (x.direction) {
    case Direction::kIn: Arrive(x); break;
    case Direction::kOut: Leave(x); break;
    case Direction::kDrop: Drop(x); break;
    case Direction::kInvalid: ++counts_.unknown; break;
  }
}

uint64_t Matcher::Start(const Tuple& x) {
  const uint64_t n = next_path_++;
  Path& p = paths_[n];
  p.hops.reserve(8);  // a leaf-spine path's length: no regrowth
  p.src = x.src;
  p.dst = x.dst;
  p.id = x.id;
  p.size = x.size;
  p.rank = x.rank;
  p.site = x.site;
  p.seq = x.seq;
  return n;
}

void Matcher::Watch(uint64_t path, int64_t t) {
  last_seen_[path] = t;
  deadlines_.push_back({t + config_.window, path});
}

uint64_t Matcher::TakeFlight(const Key& key, int64_t t) {
  auto f = flights_.find(key);
  if (f == flights_.end()) return UINT64_MAX;
  auto best = f->second.end();
  for (auto it = f->second.begin(); it != f->second.end(); ++it) {
    const int64_t off = t - it->expected;
    if (std::llabs(off) > config_.window) continue;
    if (best == f->second.end() || std::llabs(off) < std::llabs(t - best->expected)) best = it;
  }
  if (best == f->second.end()) return UINT64_MAX;
  const uint64_t path = best->path;
  f->second.erase(best);
  if (f->second.empty()) flights_.erase(f);
  return path;
}

uint64_t Matcher::TakeInside(const Key& key, int64_t t) {
  auto in = inside_.find(key);
  if (in == inside_.end()) return UINT64_MAX;
  uint64_t path = UINT64_MAX;
  // First in, first out; arrivals logged after `t` are not it.
  for (auto it = in->second.begin(); it != in->second.end(); ++it) {
    if (paths_[*it].hops.back().arrive <= t) {
      path = *it;
      in->second.erase(it);
      break;
    }
  }
  if (in->second.empty()) inside_.erase(in);
  return path;
}

Hop Matcher::NextHop(Path& p, const Tuple& x) {
  Hop hop;
  hop.device = x.device;
  hop.arrive = x.t;
  hop.in_port = x.port;
  const Hop& before = p.hops.back();
  hop.link_ns = before.depart >= 0 ? x.t - before.depart : -1;
  for (const Hop& h : p.hops) p.loop |= h.device == x.device;
  return hop;
}

void Matcher::Arrive(const Tuple& x) {
  // The flight towards this device whose expected arrival is nearest.
  uint64_t path = x.host_send ? UINT64_MAX : TakeFlight(Key{x.device, x.src, x.dst, x.id}, x.t);
  Hop hop;
  if (path == UINT64_MAX) {
    hop.device = x.device;
    hop.arrive = x.t;
    hop.in_port = x.port;
    path = Start(x);
    Path& p = paths_[path];
    // A path starts at its sending host; anywhere else, its first hops
    // went unlogged, or are logged later (a device whose clock is behind):
    // an orphan, adopted when its departure from the device before comes.
    p.from_host = x.host_send;
    if (!x.host_send) orphans_[Key{x.device, x.src, x.dst, x.id}].push_back(path);
  } else {
    hop = NextHop(paths_[path], x);
  }
  Path& p = paths_[path];
  p.hops.push_back(hop);
  inside_[Key{x.device, x.src, x.dst, x.id}].push_back(path);
  Watch(path, x.t);
  if (static_cast<int64_t>(p.hops.size()) >= config_.max_hops) {
    p.loop = true;
    End(path);
  }
}

void Matcher::Leave(const Tuple& x) {
  const Key key{x.device, x.src, x.dst, x.id};
  uint64_t path = TakeInside(key, x.t);
  if (path == UINT64_MAX) {
    auto late = timed_out_.find(key);
    if (late != timed_out_.end() && late->second <= x.t && x.t - late->second <= kLateHorizon * config_.window) {
      // Declared dropped here by the window, and now it leaves: it queued
      // longer than the window. Counted, so the user can raise it.
      ++counts_.late;
      counts_.longest_late = std::max(counts_.longest_late, x.t - late->second);
      timed_out_.erase(late);
    }
  }
  if (path == UINT64_MAX) {
    // Left without an arrival logged: the path starts here, its arrival
    // (and what came before) missing.
    path = Start(x);
    Path& p = paths_[path];
    p.gap = true;
    Hop hop;
    hop.device = x.device;
    p.hops.push_back(hop);
  }
  Path& p = paths_[path];
  Hop& hop = p.hops.back();
  hop.depart = x.t;
  hop.out_port = x.port;
  if (x.host_recv) {  // delivered
    p.to_host = true;
    // An orphan waits out the window for the departure before it.
    if (p.from_host) End(path);
    else Watch(path, x.t);
    return;
  }
  const Link* link = topology_->From(x.device, x.port);
  if (link == nullptr) {
    ++counts_.no_link;
    p.gap = true;
    End(path);
    return;
  }
  const int64_t expected = x.t + link->Expected(p.size);
  const uint64_t orphan = FindOrphan(Key{link->peer, x.src, x.dst, x.id}, link->peer_port, expected, path);
  if (orphan != UINT64_MAX) {
    Join(path, orphan, -1);
    return;
  }
  flights_[Key{link->peer, x.src, x.dst, x.id}].push_back(Flight{path, expected});
  Watch(path, x.t);
}

uint64_t Matcher::FindOrphan(const Key& next, int64_t port, int64_t expected, uint64_t self) {
  auto o = orphans_.find(next);
  if (o == orphans_.end()) return UINT64_MAX;
  auto best = o->second.end();
  int64_t best_off = 0;
  for (auto it = o->second.begin(); it != o->second.end(); ++it) {
    if (*it == self) continue;  // back where it was first seen: a loop, not a join
    const Hop& first = paths_[*it].hops.front();
    if (first.in_port >= 0 && first.in_port != port) continue;
    const int64_t off = std::llabs(first.arrive - expected);
    if (off > config_.window) continue;
    if (best == o->second.end() || off < best_off) best = it, best_off = off;
  }
  if (best == o->second.end()) return UINT64_MAX;
  const uint64_t orphan = *best;
  o->second.erase(best);
  if (o->second.empty()) orphans_.erase(o);
  return orphan;
}

void Matcher::Join(uint64_t path, uint64_t orphan, int32_t silent) {
  // The orphan keeps its number (its flights and places in devices name
  // it); the path so far goes in front of its hops.
  Path& a = paths_[path];
  Path& b = paths_[orphan];
  if (!a.from_host) {
    // An orphan itself: the joined path is the orphan at a's first device.
    auto first = orphans_.find(Key{a.hops.front().device, a.src, a.dst, a.id});
    if (first != orphans_.end()) std::replace(first->second.begin(), first->second.end(), path, orphan);
  }
  std::vector<Hop> hops = std::move(a.hops);
  if (silent >= 0) {
    Hop hop;  // passed through unlogged
    hop.device = silent;
    hop.link_ns = -1;
    hops.push_back(hop);
    b.hops.front().link_ns = -1;
    b.gap = true;
  } else {
    b.hops.front().link_ns = b.hops.front().arrive - hops.back().depart;
  }
  std::set<int32_t> devices;
  for (const Hop& h : hops) b.loop |= !devices.insert(h.device).second;
  for (const Hop& h : b.hops) b.loop |= !devices.insert(h.device).second;
  hops.insert(hops.end(), b.hops.begin(), b.hops.end());
  b.hops = std::move(hops);
  b.from_host = a.from_host;
  b.gap |= a.gap;
  if (b.size < 0) b.size = a.size;
  if (a.rank) b.rank = a.rank, b.site = a.site, b.seq = a.seq;
  paths_.erase(path);
  last_seen_.erase(path);
  if (static_cast<int64_t>(b.hops.size()) >= config_.max_hops) b.loop = true;
  // It had ended but for this; an orphan still (no host start) waits out
  // its window for the departure before it.
  if (b.loop || (b.from_host && (b.to_host || b.dropped))) End(orphan);
}

void Matcher::Drop(const Tuple& x) {
  const Key key{x.device, x.src, x.dst, x.id};
  uint64_t path = TakeInside(key, x.t);  // arrived before it was dropped
  if (path == UINT64_MAX) {
    // A drop tuple alone: its arrival unlogged, or dropped on arrival.
    path = TakeFlight(key, x.t);
    if (path != UINT64_MAX) {
      Path& p = paths_[path];
      p.hops.push_back(NextHop(p, x));
    } else {
      path = Start(x);
      Path& p = paths_[path];
      p.gap = true;
      Hop hop;
      hop.device = x.device;
      hop.arrive = x.t;
      p.hops.push_back(hop);
    }
  }
  Path& p = paths_[path];
  p.dropped = true;
  if (p.from_host) End(path);
  else Watch(path, x.t);  // an orphan waits for the departure before it
}

void Matcher::End(uint64_t n) {
  auto it = paths_.find(n);
  if (it == paths_.end()) return;
  Path p = std::move(it->second);
  paths_.erase(it);
  last_seen_.erase(n);
  // Out of the device and link tables, where it may still wait.
  if (!p.hops.empty() && !p.from_host) EraseFrom(orphans_, Key{p.hops.front().device, p.src, p.dst, p.id}, n);
  if (!p.hops.empty()) {
    const Hop& h = p.hops.back();
    EraseFrom(inside_, Key{h.device, p.src, p.dst, p.id}, n);
    if (h.depart >= 0) {
      if (const Link* link = topology_->From(h.device, h.out_port)) {
        EraseFrom(flights_, Key{link->peer, p.src, p.dst, p.id}, n);
      }
    }
  }
  if (p.hops.size() == 1) ++counts_.one_hop;
  if (p.loop) ++counts_.loops;
  else if (p.dropped) ++counts_.dropped;
  else if (p.gap || !p.from_host || !p.to_host) ++counts_.gaps;
  else ++counts_.complete;
  done_(std::move(p));
}

void Matcher::Expire(int64_t now) {
  while (!deadlines_.empty() && deadlines_.front().t < now) {
    const Deadline d = deadlines_.front();
    deadlines_.pop_front();
    auto seen = last_seen_.find(d.path);
    if (seen == last_seen_.end() || seen->second + config_.window != d.t) continue;  // moved on since
    Path& p = paths_[d.path];
    const Hop& h = p.hops.back();
    if (p.to_host || p.dropped) {
      // An orphan that had ended: its end stands.
    } else if (h.depart < 0) {
      p.dropped = true;  // last seen arriving: dropped inside that device
      if (h.arrive >= 0) RememberTimeout(Key{h.device, p.src, p.dst, p.id}, h.arrive, now);
    } else if (const Link* link = topology_->From(h.device, h.out_port);
               link != nullptr && h.depart + link->Expected(p.size) + config_.window >= now) {
      // Still due within the window of its expected arrival (a link
      // slower than the window): watched until then.
      Watch(d.path, h.depart + link->Expected(p.size));
      continue;
    } else if (JoinPastSilent(d.path)) {
      continue;
    } else {
      p.gap = true;  // left, never seen arriving: the next device's log lacks it
    }
    End(d.path);
  }
}

void Matcher::RememberTimeout(const Key& key, int64_t arrive, int64_t now) {
  timed_out_[key] = arrive;
  // Bounded: forgotten after kLateHorizon windows, swept when the table
  // has doubled since the last sweep.
  if (timed_out_.size() >= next_sweep_) {
    const int64_t horizon = now - kLateHorizon * config_.window;
    std::erase_if(timed_out_, [horizon](const auto& kv) { return kv.second < horizon; });
    next_sweep_ = std::max<size_t>(65536, 2 * timed_out_.size());
  }
}

bool Matcher::JoinPastSilent(uint64_t path) {
  const Path& p = paths_[path];
  const Hop& h = p.hops.back();
  const Link* link = topology_->From(h.device, h.out_port);
  if (link == nullptr) return false;
  const int32_t silent = link->peer;
  const int64_t at_silent = h.depart + link->Expected(p.size);
  // The orphans one link beyond, nearest where the packet would be had it
  // passed the silent device without waiting.
  uint64_t orphan = UINT64_MAX;
  const Key key{silent, p.src, p.dst, p.id};
  for (auto it = topology_->links().lower_bound({silent, INT64_MIN});
       it != topology_->links().end() && it->first.first == silent && orphan == UINT64_MAX; ++it) {
    const Link& next = it->second;
    orphan = FindOrphan(Key{next.peer, p.src, p.dst, p.id}, next.peer_port, at_silent + next.Expected(p.size), path);
  }
  if (orphan == UINT64_MAX) return false;
  EraseFrom(flights_, key, path);
  Join(path, orphan, silent);
  return true;
}

void Matcher::Finish() {
  for (const Tuple& x : pending_) Release(x);
  pending_.clear();
  Expire(INT64_MAX);
}

std::vector<int64_t> EstimateOffsets(const Topology& topology, const std::vector<Path>& paths) {
  // Least residual of each directed link: arrival - departure - expected.
  std::map<std::pair<int32_t, int32_t>, int64_t> least;
  for (const Path& p : paths) {
    for (size_t i = 1; i < p.hops.size(); ++i) {
      const Hop& a = p.hops[i - 1];
      const Hop& b = p.hops[i];
      if (a.depart < 0 || b.arrive < 0) continue;
      const Link* link = topology.From(a.device, a.out_port);
      if (link == nullptr || link->peer != b.device) continue;
      const int64_t residual = b.arrive - a.depart - link->Expected(p.size);
      auto [it, added] = least.emplace(std::make_pair(a.device, b.device), residual);
      if (!added) it->second = std::min(it->second, residual);
    }
  }
  // offset(b) - offset(a) for linked pairs: both directions averaged.
  std::map<int32_t, std::vector<std::pair<int32_t, int64_t>>> edges;
  for (const auto& [ab, r] : least) {
    const auto [a, b] = ab;
    auto back = least.find({b, a});
    const int64_t diff = back == least.end() ? r : (r - back->second) / 2;
    edges[a].emplace_back(b, diff);
    edges[b].emplace_back(a, -diff);
  }
  std::vector<int64_t> offsets(topology.size(), 0);
  std::vector<bool> seen(topology.size(), false);
  // Each group of linked devices from its first device by name.
  std::vector<int32_t> order(topology.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return topology.Name(x) < topology.Name(y); });
  for (int32_t root : order) {
    if (seen[root]) continue;
    seen[root] = true;
    std::deque<int32_t> queue{root};
    std::vector<int32_t> group{root};
    while (!queue.empty()) {
      const int32_t a = queue.front();
      queue.pop_front();
      for (const auto& [b, diff] : edges[a]) {
        if (seen[b]) continue;
        seen[b] = true;
        offsets[b] = offsets[a] + diff;
        queue.push_back(b);
        group.push_back(b);
      }
    }
    // Relative to the group's clock that runs furthest ahead: every offset
    // is then <= 0, and a corrected time never falls below its raw time
    // (nor below 0, where -1 means "not logged").
    int64_t ahead = INT64_MIN;
    for (int32_t d : group) ahead = std::max(ahead, offsets[d]);
    for (int32_t d : group) offsets[d] -= ahead;
  }
  return offsets;
}

}  // namespace rp::hops
