// rp-hops: sampled packets' paths rebuilt through the network from the log
// tuples each device wrote (path-synchronous monitoring paper §3, "Post-
// mortem analysis"), their per-hop delays and drops.
//
// Every device logs a marked packet as it arrives (host_send at the sending
// host, switch_in, nic_rx) and as it leaves (nic_tx, switch_out, host_recv
// at the destination), or drops it (drop). A packet's next hop is the link
// from the device and port it left by (`link` records); there the packet
// is the tuple with the same <src, dst, id> whose arrival lies nearest the
// departure plus the link's delay (size * 8 / rate + propagation), within
// the matching window: ids need not be unique, as the paper's PKIDs are
// not. Inside a device, arrivals and departures of one <src, dst, id> pair
// up first in, first out.
//
// A packet last seen arriving at a device was dropped there; one last seen
// leaving, with no arrival at the next device within the window, lost its
// telemetry there (a gap). A packet first seen inside the network had its
// first hops' telemetry missing (a gap) — unless its departure from the
// device before is logged later, within the window (clocks offset), which
// joins the two. A packet arriving from a device where it was never seen,
// but whose flight towards that device was expected there earlier, passed
// it unlogged: one path with that device as a hop without times (a gap).
// A device seen twice is a loop.
//
// Devices' clocks may be offset: each link's least observed delay over its
// expected delay is the difference of its ends' offsets (a link does not
// queue), and offsets follow from one device along the links (both
// directions of a link averaged, as NTP does), reckoned from the clock that
// runs furthest ahead, so corrected times never fall below raw ones.
// EstimateOffsets measures
// them on a prefix of the log; the Matcher subtracts them.
//
// Memory: the packets in flight within the window, and the reorder buffer.
#ifndef RP_LIB_HOPS_HOPS_H_
#define RP_LIB_HOPS_HOPS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <deque>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lib/trace/schema.h"

namespace rp::hops {

// Names looked up by string_view without building a std::string.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
using NameIndex = std::unordered_map<std::string, int32_t, NameHash, std::equal_to<>>;

struct Link {
  int32_t peer = -1;  // device index
  int64_t peer_port = 0;
  int64_t rate = 0;   // bits/s; 0: unknown
  int64_t delay = 0;  // propagation, ns
  // Serialisation plus propagation of `size` bytes.
  int64_t Expected(int64_t size) const {
    return delay + (rate > 0 && size > 0 ? static_cast<int64_t>(static_cast<__int128>(size) * 8 * 1000000000 / rate) : 0);
  }
};

// Device names and the links between them.
class Topology {
 public:
  Topology() = default;
  // by_port_ points into links_: moved along with it, never copied.
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  Topology(Topology&&) = default;
  Topology& operator=(Topology&&) = default;
  // Adds one direction of a link; false when (device, port) has one already
  // to another peer.
  bool Add(const trace::LinkRecord& link);
  // The device's index, -1 when no link names it.
  int32_t Find(std::string_view device) const;
  int32_t Intern(std::string_view device);
  const std::string& Name(int32_t device) const { return names_[device]; }
  size_t size() const { return names_.size(); }
  const Link* From(int32_t device, int64_t port) const;
  // Every link as (device, port) -> Link.
  const std::map<std::pair<int32_t, int64_t>, Link>& links() const { return links_; }

 private:
  std::vector<std::string> names_;
  NameIndex index_;
  std::map<std::pair<int32_t, int64_t>, Link> links_;
  // The same links for lookup by (device, port) on every tuple; a map's
  // nodes do not move, so the pointers stay valid.
  struct PortHash {
    size_t operator()(const std::pair<int32_t, int64_t>& k) const {
      return (static_cast<uint64_t>(k.second) * 0x9E3779B97F4A7C15ull) ^ static_cast<uint32_t>(k.first);
    }
  };
  std::unordered_map<std::pair<int32_t, int64_t>, const Link*, PortHash> by_port_;
};

enum class Direction { kIn, kOut, kDrop, kInvalid };
Direction DirectionOf(std::string_view kind);

struct Hop {
  int32_t device = -1;
  int64_t arrive = -1, depart = -1;  // ns, offset-corrected; -1: not logged
  int64_t in_port = -1, out_port = -1;
  int64_t link_ns = 0;  // on the link into this device; -1: unknown
};

struct Path {
  int32_t src = -1, dst = -1;  // host names, interned in the Matcher's hosts
  int64_t id = 0, size = -1;
  std::vector<Hop> hops;
  bool from_host = false;  // starts with host_send
  bool to_host = false;    // ends with host_recv
  bool dropped = false;    // last seen arriving, or a drop tuple
  bool gap = false;        // telemetry missing
  bool loop = false;
  std::optional<int64_t> rank, site, seq;
  const char* Status() const;
};

// Times beyond this (about 146 years of ns) are not a clock's: skipped, so
// that adding a window never overflows.
inline constexpr int64_t kLatestTime = int64_t{1} << 62;

struct Config {
  int64_t window = 1000000;            // ns: matching and reordering
  std::vector<int64_t> offsets;        // by device index, subtracted
  int64_t max_hops = 64;               // a loop stops here
};

struct Counts {
  int64_t tuples = 0, complete = 0, dropped = 0, gaps = 0, loops = 0, duplicates = 0, unknown = 0, no_link = 0,
          backwards = 0, one_hop = 0;
  // Departures from a device after the window had declared the packet
  // dropped there (it queued longer than the window), and the longest such
  // stay, ns.
  int64_t late = 0, longest_late = 0;
};

// Rebuilds paths from net tuples fed in (roughly: within the window) time
// order; `done` gets each path when it ends (complete, dropped, or timed
// out).
class Matcher {
 public:
  Matcher(Topology* topology, const Config& config, std::function<void(Path&&)> done);
  ~Matcher();
  void Add(const trace::NetRecord& r);
  // Ends every path still open.
  void Finish();
  const Counts& counts() const { return counts_; }
  const std::string& Host(int32_t host) const { return hosts_[host]; }

 private:
  struct Tuple {
    int32_t device, src, dst;
    Direction direction;
    bool host_send = false, host_recv = false;  // the path's two ends
    int64_t port, id, size, t;
    uint64_t order;  // input order: ties in time keep it
    std::optional<int64_t> rank, site, seq;
  };
  struct Key {
    int32_t device, src, dst;
    int64_t id;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Flight {  // left a device, not yet arrived at the next
    uint64_t path;
    int64_t expected;  // arrival
  };
  struct Deadline {
    int64_t t;
    uint64_t path;
    bool operator>(const Deadline& o) const { return t > o.t || (t == o.t && path > o.path); }
  };
  int32_t HostIndex(std::string_view host);
  void Process(const Tuple& x);
  void Arrive(const Tuple& x);
  void Leave(const Tuple& x);
  void Drop(const Tuple& x);
  uint64_t Start(const Tuple& x);
  void End(uint64_t path);
  void Expire(int64_t now);
  void Watch(uint64_t path, int64_t t);
  // The path in flight to key.device whose expected arrival is nearest t
  // within the window, taken off the link; UINT64_MAX when none.
  uint64_t TakeFlight(const Key& key, int64_t t);
  // The oldest path inside key.device (key's packet) that arrived by t,
  // taken out; UINT64_MAX when none.
  uint64_t TakeInside(const Key& key, int64_t t);
  // The hop `x` adds to `p` after its last departure: the link's time,
  // and a loop when the device is on it already.
  Hop NextHop(Path& p, const Tuple& x);
  // The orphan (a path first seen arriving inside the network) at
  // next.device, in by `port`, that arrived nearest `expected` within the
  // window, taken off the orphans; UINT64_MAX when none. Never `self`.
  uint64_t FindOrphan(const Key& next, int64_t port, int64_t expected, uint64_t self);
  // Puts `path` in front of `orphan`'s hops, with the `silent` device (>= 0)
  // between them as a hop without times; `path` is gone, `orphan` goes on.
  void Join(uint64_t path, uint64_t orphan, int32_t silent);
  // At the end of the window of a path that left for a device that never
  // logged it: joins it to an orphan one link beyond that device.
  bool JoinPastSilent(uint64_t path);
  void RememberTimeout(const Key& key, int64_t arrive, int64_t now);

  Topology* topology_;
  Config config_;
  std::function<void(Path&&)> done_;
  Counts counts_;
  std::vector<std::string> hosts_;
  NameIndex host_index_;
  // Reorder buffer: tuples wait, sorted by (t, input order), until the
  // window has passed them. Logs come nearly in order, so a tuple goes in
  // at or near the back: a sorted deque costs O(1) a tuple where a heap
  // costs O(log n) moves.
  std::deque<Tuple> pending_;
  void Release(const Tuple& x);
  int64_t newest_ = INT64_MIN, released_ = INT64_MIN;
  // Open paths by number; inside a device (arrived, not left), and on a
  // link towards a device.
  std::unordered_map<uint64_t, Path> paths_;
  std::unordered_map<uint64_t, int64_t> last_seen_;
  std::unordered_map<Key, std::vector<uint64_t>, KeyHash> inside_;
  std::unordered_map<Key, std::vector<Flight>, KeyHash> flights_;
  // Paths first seen arriving inside the network, by their first device:
  // the departure before may be logged later (that device's clock behind).
  std::unordered_map<Key, std::vector<uint64_t>, KeyHash> orphans_;
  // First in, first out: tuples are processed in time order and the window
  // is fixed. A packet on a link slower than the window is watched again
  // until its expected arrival's window has passed; that, and a tuple
  // processed late, only delay the deadlines queued after theirs.
  std::deque<Deadline> deadlines_;
  // Packets declared dropped by the window, by device and key: the
  // arrival time. A departure that finds one was late, not a new packet.
  std::unordered_map<Key, int64_t, KeyHash> timed_out_;
  size_t next_sweep_ = 65536;
  static constexpr int64_t kLateHorizon = 100;  // windows a timed-out packet is remembered
  // The tuples processed at the current time, to drop duplicates: a tuple
  // logged twice has the same time, and tuples are processed in time
  // order, so memory stays one timestamp's tuples.
  struct Seen {
    Key key;
    Direction direction;
    int64_t port;
    bool operator==(const Seen&) const = default;
  };
  struct SeenHash {
    size_t operator()(const Seen& s) const {
      return KeyHash()(s.key) ^ (static_cast<size_t>(s.port) * 31 + static_cast<size_t>(s.direction));
    }
  };
  std::unordered_set<Seen, SeenHash> seen_now_;
  int64_t seen_t_ = INT64_MIN;
  uint64_t next_path_ = 0;
};

// Per-device clock offsets from the links' least residual delays over the
// paths given (device index -> ns): relative to the clock of each group of
// linked devices that runs furthest ahead, so all are <= 0.
std::vector<int64_t> EstimateOffsets(const Topology& topology, const std::vector<Path>& paths);

}  // namespace rp::hops

#endif  // RP_LIB_HOPS_HOPS_H_
