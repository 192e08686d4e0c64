#include "collector/online.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <memory>
#include <map>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "collector/handle_map.h"
#include "collector/raw_format.h"
#include "collector/runtime.h"
#include "lib/base/apportion.h"
#include "lib/mpi/functions.h"
#include "lib/online/function_keys.h"
#include "lib/online/path.h"
#include "lib/online/path_set.h"
#include "lib/online/site_keys.h"

namespace rp::collector::online {

bool g_on = false;

namespace {

using rp::online::Entry;
using rp::online::kWireBytes;
using rp::online::Path;
using rp::online::PathSet;
using rp::online::SetConfig;
using rp::online::FunctionKeys;
using rp::online::SiteKeys;

template <typename Handle>
uint64_t Key(Handle handle) {
  uint64_t key = 0;
  std::memcpy(&key, &handle, sizeof handle);
  return key;
}

struct SiteSlot {
  uint64_t key = 0;
  int64_t compute = 0, mpi = 0, calls = 0;
  int32_t fn = -1;
};

// A piggyback's bytes: the path's record, and with representative paths
// on, their set at a fixed offset behind it (so that the collectives'
// operation finds both): at most kWireBytes either way.
size_t g_wire = kWireBytes;
size_t g_path_room = kWireBytes;

using Buffer = std::unique_ptr<uint8_t[]>;
// Wire records: never read beyond the length they say, so not cleared.
std::vector<Buffer> g_free_buffers;
Buffer NewBuffer() {
  if (g_free_buffers.empty()) return Buffer(new uint8_t[g_wire]);
  Buffer b = std::move(g_free_buffers.back());
  g_free_buffers.pop_back();
  return b;
}
void FreeBuffer(Buffer b) {
  if (b) g_free_buffers.push_back(std::move(b));
}

// A path's summary for the collectives: each member's, combined into the
// longest's (ties: the lower rank) with the latest entry and the highest
// region; the path itself then comes from that member alone.
struct Head {
  int64_t length, t;
  int32_t rank, bytes, region, unused;
};

void CombineHeads(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) {
    const Head& a = static_cast<const Head*>(in)[i];
    Head& b = static_cast<Head*>(inout)[i];
    const int64_t t = std::max(a.t, b.t);
    const int32_t region = std::max(a.region, b.region);
    if (a.length > b.length || (a.length == b.length && a.rank < b.rank)) b = a;
    b.t = t;
    b.region = region;
  }
}

struct Shadow {
  MPI_Comm dup = MPI_COMM_NULL;
  bool inter = false;
  // Receives still to take their piggyback once their payload is in
  // (request ids), in the order they were posted.
  std::vector<int32_t> deferred;
};

struct Req {
  enum Kind : uint8_t { kUnused, kSend, kRecv, kColl } kind = kUnused;
  bool persistent = false;
  bool deferred = false;  // in its shadow's deferred list
  bool have = false;      // its piggyback is in buf
  int32_t shadow = -1;    // index into State::shadows
  int peer = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;  // communicator ranks
  MPI_Request handle = MPI_REQUEST_NULL;         // the application's
  MPI_Request piggy = MPI_REQUEST_NULL;          // pre-posted receive, or the path collective
  uint64_t seq = 0;
  bool partner = false;  // a collective whose result is this rank's partner
  bool replace = false;  // an all-to-all one, whose path set replaces the rank's
  Buffer buf, sendbuf;
};

struct PendingSend {
  MPI_Request request;
  Buffer buf;
};

struct Completion {
  uint64_t seq;
  int32_t id;
  MPI_Status status;
  bool coll;
};

struct State {
  int rank = 0;
  int64_t offset = 0;     // rank 0's clock minus this rank's
  int64_t last_exit = 0;  // local ns
  int64_t start = 0;      // global ns: MPI_Init's return
  // The region this rank's own MPI_Pcontrol calls have reached (the
  // path's may be ahead: markers from other ranks); when it entered and
  // left each measured region (global ns; INT64_MIN: not this rank's).
  int32_t own_region = 1;
  std::vector<int64_t> region_starts, region_stops;
  Path path;
  // Representative paths (RP_ONLINE_PATHS): this rank's set, and its calls
  // so far (a task's call number).
  bool repr = false;
  SetConfig set_config;
  PathSet set;
  int64_t calls = 0;
  std::unique_ptr<SiteKeys> keys;
  // Sampled functions (RP_SAMPLE_HZ > 0): the keys, the ns a sample
  // stands for, the function of the rank's last sample, and the rank's
  // computation by function.
  std::unique_ptr<FunctionKeys> functions;
  int64_t sample_period = 0;
  uint64_t last_function = 0;
  int64_t* last_function_time = nullptr;  // its entry in function_time
  int64_t* last_context_time = nullptr;   // last_context's in context_time
  int64_t samples_used = 0;               // samples inside a measured computation
  std::unordered_map<uint64_t, int64_t> function_time;
  // Calling contexts: each one's chain (function key, then its callers'
  // keys), the last sample's, and the rank's computation by context.
  std::unordered_map<uint64_t, std::vector<uint64_t>> context_chains;
  uint64_t last_context = 0;
  std::unordered_map<uint64_t, int64_t> context_time;
  std::unordered_map<uint64_t, SiteSlot> sites;  // by return address
  SiteSlot* current = nullptr;                   // the call's
  int64_t call_t0 = 0;                           // its entry, global ns

  HandleMap shadow_ids;  // application comm -> index into shadows
  std::vector<Shadow> shadows;
  std::vector<Req> reqs;  // by the runtime's request id
  uint64_t next_seq = 0;
  std::vector<PendingSend> sends;
  std::vector<std::pair<int32_t, Buffer>> messages;  // matched probes' piggybacks
  std::vector<Req> orphans;  // freed receives whose pre-posted piggyback is still out

  MPI_Datatype wire = MPI_DATATYPE_NULL;  // kWireBytes contiguous bytes
  MPI_Op longest = MPI_OP_NULL;
  MPI_Datatype head = MPI_DATATYPE_NULL;  // a Head
  MPI_Op longest_head = MPI_OP_NULL;

  int64_t unpaired_receives = 0, unpaired_sends = 0, skipped_calls = 0;
  int64_t piggyback_bytes = 0, piggybacks = 0;

  // The partial record's room, made at Start (a signal handler fills it).
  std::unique_ptr<char[]> partial;
};

// The samples not yet charged: the sampler's signal handler adds at the
// head, the calls take from the tail, on one thread (a signal fence
// orders them). Full (a computation of over 5 s at 200 Hz): samples are
// dropped, and the computation's split follows the ones kept.
constexpr uint32_t kCallers = 30;  // frames above the sampled function kept for its context
struct RingSample {
  int64_t t;
  uint64_t address;  // the innermost application frame (0: none)
  int64_t weight;    // ns it stands for
  uint32_t n_callers;
  uint64_t callers[kCallers];  // return addresses above it, innermost first
};
constexpr uint32_t kRing = 1024;
RingSample g_ring[kRing];
volatile uint32_t g_ring_head = 0, g_ring_tail = 0;

// Set while the path changes: a signal then finds no consistent path.
volatile sig_atomic_t g_updating = 0;
struct Updating {
  Updating() { g_updating = 1; }
  ~Updating() { g_updating = 0; }
};

constexpr size_t kPartialBytes = sizeof(raw::OnlineFixed) + kWireBytes + 8 + Path::kSites * sizeof(raw::OnlineSite);

State& O() {
  static State* state = new State();
  return *state;
}

// The call being made (one at a time: no MPI_THREAD_MULTIPLE).
int64_t t_work = 0;  // the collector's online work before the payload's call
std::vector<Entry> t_partners;
size_t t_n_partners = 0;
// The partners' path sets (where they came with one), and the partner of
// an all-to-all collective, whose set the rank takes as it is (-1: none).
std::vector<PathSet> t_sets;
std::vector<char> t_has_set;
int t_replace = -1;
std::vector<Completion> t_completions;
// The computation before the call by sampled function (for the path set).
std::vector<rp::online::FunctionCost> t_parts;
// The thread the sampler samples (MPI_Init's): only its calls take the
// ring's samples (MPI_THREAD_SERIALIZED may call from another thread).
thread_local bool t_sampled_thread = false;

Entry& NextPartner() {
  if (t_n_partners == t_partners.size()) t_partners.emplace_back(), t_sets.emplace_back(), t_has_set.push_back(0);
  t_has_set[t_n_partners] = 0;
  return t_partners[t_n_partners++];
}

// A partner's path (and set) from a piggyback; false if malformed.
bool AddPartner(const uint8_t* buf, int64_t* unpaired) {
  Entry& e = NextPartner();
  if (!Path::Decode({buf, g_path_room}, &e.path, &e.t)) {
    --t_n_partners;
    ++*unpaired;
    return false;
  }
  if (O().repr) {
    t_has_set[t_n_partners - 1] =
        PathSet::Decode({buf + g_path_room, g_wire - g_path_room}, O().set_config, &t_sets[t_n_partners - 1]);
  }
  return true;
}

int64_t Global(int64_t local) { return local + O().offset; }

void CombineOp(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) {
    const uint8_t* a = static_cast<const uint8_t*>(in) + i * g_wire;
    uint8_t* b = static_cast<uint8_t*>(inout) + i * g_wire;
    rp::online::CombineWire(a, b, g_path_room);
    if (O().repr) rp::online::JoinWire(O().set_config, a + g_path_room, b + g_path_room);
  }
}

// The path (and set) as it entered the call (entry time t0, global), for
// a partner; EntryBytes of it are meaningful.
void EncodeEntry(uint8_t* out, int64_t t0_global) {
  State& o = O();
  o.path.Encode({out, g_path_room}, t0_global);
  if (o.repr) o.set.Encode({out + g_path_room, g_wire - g_path_room});
}
size_t EntryBytes() {
  const State& o = O();
  return o.repr ? g_path_room + o.set.WireBytes() : o.path.WireBytes();
}

// The partners' sets joined into the rank's (at a call's exit).
void JoinPartnerSets() {
  State& o = O();
  static std::vector<const PathSet*> sets;
  sets.clear();
  if (t_replace >= 0 && t_has_set[t_replace]) o.set = t_sets[t_replace];
  for (size_t i = 0; i < t_n_partners; ++i) {
    if (t_has_set[i] && static_cast<int>(i) != t_replace) sets.push_back(&t_sets[i]);
  }
  if (!sets.empty()) o.set.Join(sets);
}

// A function key as rank 0's raw records hold it: its first instruction's
// address plus one, which rp-record names as it names a return address
// (0: a module not mapped here).
uint64_t FunctionAddress(uint64_t key) {
  const uint64_t address = O().keys->Address(key);
  return address != 0 ? address + 1 : 0;
}

// Every rank's `local` entries, one after another at rank 0 (empty on the
// others); `sizes` (optional): each rank's bytes, at rank 0.
template <typename T>
std::vector<T> GatherAtRoot(const std::vector<T>& local, MPI_Comm comm, std::vector<int>* sizes_out = nullptr) {
  int size = 0, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  const int bytes = static_cast<int>(local.size() * sizeof(T));
  std::vector<int> sizes(rank == 0 ? size : 0), displs(rank == 0 ? size : 0);
  PMPI_Gather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm);
  std::vector<T> all;
  if (rank == 0) {
    int64_t total = 0;
    for (int r = 0; r < size; ++r) displs[r] = static_cast<int>(total), total += sizes[r];
    all.resize(total / sizeof(T));
  }
  PMPI_Gatherv(local.data(), bytes, MPI_BYTE, all.data(), sizes.data(), displs.data(), MPI_BYTE, 0, comm);
  if (sizes_out) *sizes_out = std::move(sizes);
  return all;
}

// Every rank's calling contexts' chains, each once, at rank 0: sent first
// to the rank the context's key picks (an MPI_Alltoallv), which keeps one
// of each, then gathered. As flat words: key, chain length, chain.
std::vector<uint64_t> GatherContextChains(MPI_Comm comm) {
  State& o = O();
  int size = 0;
  PMPI_Comm_size(comm, &size);
  std::vector<std::vector<uint64_t>> to(size);
  for (const auto& [key, chain] : o.context_chains) {
    std::vector<uint64_t>& words = to[key % static_cast<uint64_t>(size)];
    words.push_back(key);
    words.push_back(chain.size());
    words.insert(words.end(), chain.begin(), chain.end());
  }
  std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
  std::vector<uint64_t> send;
  for (int r = 0; r < size; ++r) {
    send_displs[r] = static_cast<int>(send.size());
    send_counts[r] = static_cast<int>(to[r].size());
    send.insert(send.end(), to[r].begin(), to[r].end());
  }
  PMPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm);
  int64_t total = 0;
  for (int r = 0; r < size; ++r) recv_displs[r] = static_cast<int>(total), total += recv_counts[r];
  std::vector<uint64_t> received(total);
  PMPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_UINT64_T, received.data(),
                 recv_counts.data(), recv_displs.data(), MPI_UINT64_T, comm);
  std::vector<uint64_t> unique;
  std::unordered_set<uint64_t> seen;
  for (size_t at = 0; at + 2 <= received.size();) {
    const uint64_t n = received[at + 1];
    if (at + 2 + n > received.size()) break;
    if (seen.insert(received[at]).second) unique.insert(unique.end(), received.begin() + at, received.begin() + at + 2 + n);
    at += 2 + n;
  }
  return GatherAtRoot(unique, comm);
}

// `path` as the raw kOnline record holds it: its site keys turned into
// this rank's return addresses, so that the merge names them as it names
// the rank's events' sites. Returns the bytes written (0: no room).
size_t EncodeWithAddresses(const Path& path, int64_t t, std::span<uint8_t> out) {
  const size_t bytes = path.Encode(out, t);
  const size_t site_bytes = path.has_reductions() ? Path::kZeroingSiteBytes : Path::kSiteBytes;
  for (size_t i = 0; bytes > 0 && i < path.sites().size(); ++i) {
    const uint64_t address = O().keys->Address(path.sites()[i].site);
    std::memcpy(out.data() + Path::kHeaderBytes + i * site_bytes, &address, sizeof address);
  }
  const size_t functions_at = Path::kHeaderBytes + path.sites().size() * site_bytes;
  for (size_t i = 0; bytes > 0 && i < path.functions().size(); ++i) {
    const uint64_t address = FunctionAddress(path.functions()[i].function);
    const size_t function_bytes = path.has_reductions() ? Path::kZeroingFunctionBytes : Path::kFunctionBytes;
    std::memcpy(out.data() + functions_at + i * function_bytes, &address, sizeof address);
  }
  return bytes;
}

Shadow* ShadowOf(MPI_Comm comm, int32_t* index = nullptr) {
  State& o = O();
  const int32_t i = o.shadow_ids.Find(Key(comm));
  if (i < 0 || o.shadows[i].dup == MPI_COMM_NULL) return nullptr;
  if (index) *index = i;
  return &o.shadows[i];
}

Req& ReqAt(int32_t id) {
  State& o = O();
  if (static_cast<size_t>(id) >= o.reqs.size()) o.reqs.resize(id + 1);
  return o.reqs[id];
}

// Completes the piggyback sends that are done, so that their buffers and
// requests do not pile up.
void ReapSends() {
  State& o = O();
  if (o.sends.size() < 64) return;
  static std::vector<MPI_Request> requests;
  static std::vector<int> done;
  requests.clear();
  for (const PendingSend& p : o.sends) requests.push_back(p.request);
  done.resize(requests.size());
  int n = 0;
  PMPI_Testsome(static_cast<int>(requests.size()), requests.data(), &n, done.data(), MPI_STATUSES_IGNORE);
  if (n <= 0 || n == MPI_UNDEFINED) return;
  size_t kept = 0;
  for (size_t i = 0; i < o.sends.size(); ++i) {
    if (requests[i] == MPI_REQUEST_NULL) {
      FreeBuffer(std::move(o.sends[i].buf));
    } else {
      o.sends[kept++] = {requests[i], std::move(o.sends[i].buf)};
    }
  }
  o.sends.resize(kept);
}

void RemoveDeferred(Req& r, int32_t id) {
  if (!r.deferred) return;
  std::vector<int32_t>& list = O().shadows[r.shadow].deferred;
  list.erase(std::find(list.begin(), list.end(), id));
  r.deferred = false;
}

bool IsCancelled(const MPI_Status& status) {
  int cancelled = 0;
  PMPI_Test_cancelled(&status, &cancelled);
  return cancelled != 0;
}

// Receives posted before the one completing now from `source`/`tag` on
// `shadow` that have their payload from the same source and tag matched
// earlier messages (MPI's non-overtaking order): they take their
// piggybacks first. `upto`: the completing receive's id (-1: a blocking
// receive, posted after them all).
void TakeEarlier(Shadow& sh, int32_t upto, int source, int tag) {
  State& o = O();
  for (int32_t id : sh.deferred) {
    if (id == upto) break;
    Req& r = o.reqs[id];
    if (r.have) continue;
    int flag = 0;
    MPI_Status status;
    PMPI_Request_get_status(r.handle, &flag, &status);
    if (!flag || IsCancelled(status) || status.MPI_SOURCE != source || status.MPI_TAG != tag) continue;
    if (!r.buf) r.buf = NewBuffer();
    PMPI_Recv(r.buf.get(), static_cast<int>(g_wire), MPI_BYTE, source, tag, sh.dup, MPI_STATUS_IGNORE);
    r.have = true;
  }
}

// The piggyback of a payload from `source`/`tag` received just now, when
// none was pre-posted for it, into `buf`.
void Take(Shadow& sh, int32_t upto, int source, int tag, uint8_t* buf) {
  TakeEarlier(sh, upto, source, tag);
  PMPI_Recv(buf, static_cast<int>(g_wire), MPI_BYTE, source, tag, sh.dup, MPI_STATUS_IGNORE);
  ++O().piggybacks;
}

// The same, as the call's partner.
void TakeNow(Shadow& sh, int32_t upto, int source, int tag) {
  static thread_local Buffer buf = NewBuffer();
  Take(sh, upto, source, tag, buf.get());
  AddPartner(buf.get(), &O().unpaired_receives);
}

// A receive request whose payload is in (in posting order among those
// completed by one call).
void TakeCompletedRecv(int32_t id, const MPI_Status& status) {
  State& o = O();
  Req& r = o.reqs[id];
  if (r.kind != Req::kRecv) return;
  const bool cancelled = IsCancelled(status);
  if (r.piggy != MPI_REQUEST_NULL) {
    if (cancelled) {
      // Its piggyback belongs to the next receive of that message's kind:
      // cancel ours too, and count it when it matched already.
      PMPI_Cancel(&r.piggy);
      MPI_Status st;
      PMPI_Wait(&r.piggy, &st);
      if (!IsCancelled(st)) ++o.unpaired_receives;
    } else {
      PMPI_Wait(&r.piggy, MPI_STATUS_IGNORE);
      AddPartner(r.buf.get(), &o.unpaired_receives);
    }
  } else if (r.have) {
    if (!cancelled) AddPartner(r.buf.get(), &o.unpaired_receives);
  } else if (!cancelled && status.MPI_SOURCE != MPI_PROC_NULL && r.shadow >= 0) {
    TakeNow(o.shadows[r.shadow], id, status.MPI_SOURCE, status.MPI_TAG);
  } else if (!cancelled && status.MPI_SOURCE != MPI_PROC_NULL) {
    ++o.unpaired_receives;
  }
  r.have = false;
  RemoveDeferred(r, id);
  if (!r.persistent) r.kind = Req::kUnused, FreeBuffer(std::move(r.buf));
}

// Posts (or defers) the piggyback receive of receive request `id`.
void PostRecv(int32_t id) {
  State& o = O();
  Req& r = o.reqs[id];
  r.seq = o.next_seq++;
  r.have = false;
  if (r.shadow < 0 || r.peer == MPI_PROC_NULL) return;
  Shadow& sh = o.shadows[r.shadow];
  if (r.peer != MPI_ANY_SOURCE && r.tag != MPI_ANY_TAG && sh.deferred.empty()) {
    if (!r.buf) r.buf = NewBuffer();
    PMPI_Irecv(r.buf.get(), static_cast<int>(g_wire), MPI_BYTE, r.peer, r.tag, sh.dup, &r.piggy);
    ++o.piggybacks;
  } else {
    sh.deferred.push_back(id);
    r.deferred = true;
  }
}

// Sends the path as it entered the call, and when, to `dest` (a rank of
// `sh`, or no duplicate: counted). Its time is the call's online work
// before the payload's call.
void SendPath(const Shadow* sh, int dest, int tag) {
  State& o = O();
  const int64_t begin = MonotonicNs();
  if (sh == nullptr) {
    ++o.skipped_calls;
  } else {
    Buffer buf = NewBuffer();
    EncodeEntry(buf.get(), o.call_t0);
    const size_t bytes = EntryBytes();
    MPI_Request request;
    PMPI_Isend(buf.get(), static_cast<int>(bytes), MPI_BYTE, dest, tag, sh->dup, &request);
    o.sends.push_back({request, std::move(buf)});
    o.piggyback_bytes += static_cast<int64_t>(bytes);
    ++o.piggybacks;
    ReapSends();
  }
  t_work += MonotonicNs() - begin;
}


// Zeroing at an all-to-all collective whose members' heads chose the
// longest path (in `winner`, broadcast): its reductions lowered to every
// member's (online-CP §3: the members' net lengths compared), by an
// MPI_Allreduce with MPI_MIN over each kept site's (and function's)
// reductions — the only exchange zeroing adds, and only when the path has
// a reduction.
void LowerWinnersReductions(uint8_t* winner, bool mine, MPI_Comm comm) {
  State& o = O();
  static thread_local Path w;
  static thread_local std::vector<int64_t> bounds, lowest;
  int64_t t = 0;
  if (!Path::Decode({winner, g_path_room}, &w, &t)) return;
  bool any = false;
  for (const rp::online::SiteShare& s : w.sites()) any = any || s.reduction_compute > 0 || s.reduction_mpi > 0;
  for (const rp::online::FunctionShare& f : w.functions()) any = any || f.reduction > 0;
  if (!any) return;  // every member sees the same path: all skip
  // The winner's own bounds are its reductions (no gap, its own shares).
  o.path.BoundsOn(w, &bounds);
  lowest.resize(bounds.size());
  PMPI_Allreduce(bounds.data(), lowest.data(), static_cast<int>(bounds.size()), MPI_INT64_T, MPI_MIN, comm);
  if (mine) {
    o.path.LowerReductions(lowest);
    return;
  }
  w.LowerReductions(lowest);
  w.Encode({winner, g_path_room}, t);
}

// The collective kinds of lib/graph: who a member's exit waits for. The
// members' heads are combined first (24 bytes), then only the longest
// path travels, at its length: a path record can be kilobytes.
void ExchangeBlocking(const Shadow& sh, uint16_t fn, int root) {
  State& o = O();
  static thread_local Buffer in = NewBuffer(), out = NewBuffer();
  int me = 0;
  PMPI_Comm_rank(sh.dup, &me);
  const Head mine{o.path.length(), o.call_t0, me, static_cast<int32_t>(EntryBytes()), o.path.region(), 0};
  Head best = mine;
  // The winner's path as this rank's partner; the winner itself gets only
  // the latest entry (a partner without a path).
  auto partner = [&](bool mine_won, bool receives) {
    ++o.piggybacks;
    if (mine_won || !receives) {
      Entry& e = NextPartner();
      e.path = Path();
      e.path.set_region(best.region);
      e.t = best.t;
      return;
    }
    AddPartner(out.get(), &o.unpaired_receives);
    t_partners[t_n_partners - 1].t = best.t;
    t_partners[t_n_partners - 1].path.set_region(best.region);
  };
  switch (mpi::kFunctions[fn].collective) {
    case mpi::Collective::kAll:
      if (o.repr) {
        // Whole records: the longest path and k of the members' kP paths
        // (pairwise: repr's selection is not associative, so the root's
        // result then goes to all, as in the paper's Figure 3, line 33).
        EncodeEntry(in.get(), o.call_t0);
        PMPI_Allreduce(in.get(), out.get(), 1, o.wire, o.longest, sh.dup);
        if (o.set_config.select == rp::repr::Select::kRepr) {
          PMPI_Bcast(out.get() + g_path_room, static_cast<int>(g_wire - g_path_room), MPI_BYTE, 0, sh.dup);
        }
        ++o.piggybacks;
        if (AddPartner(out.get(), &o.unpaired_receives)) t_replace = static_cast<int>(t_n_partners) - 1;
        return;
      }
      PMPI_Allreduce(&mine, &best, 1, o.head, o.longest_head, sh.dup);
      if (best.rank == me) EncodeEntry(out.get(), o.call_t0);
      PMPI_Bcast(out.get(), best.bytes, MPI_BYTE, best.rank, sh.dup);
      if (Path::zeroing()) LowerWinnersReductions(out.get(), best.rank == me, sh.dup);
      partner(best.rank == me, true);
      return;
    case mpi::Collective::kRootOut:
      // The root's path, to everyone.
      PMPI_Bcast(&best, 1, o.head, root, sh.dup);
      if (me == root) {
        EncodeEntry(out.get(), o.call_t0);
        PMPI_Bcast(out.get(), best.bytes, MPI_BYTE, root, sh.dup);
        return;
      }
      PMPI_Bcast(out.get(), best.bytes, MPI_BYTE, root, sh.dup);
      best.t = std::max(best.t, o.call_t0);
      partner(false, true);
      return;
    case mpi::Collective::kRootIn:
      // Whole records, combined on the way to the root (a point-to-point
      // message from the longest would share the duplicate with the
      // piggybacks, and might take one of their tags).
      EncodeEntry(in.get(), o.call_t0);
      PMPI_Reduce(in.get(), out.get(), 1, o.wire, o.longest, root, sh.dup);
      if (me != root) return;
      ++o.piggybacks;
      AddPartner(out.get(), &o.unpaired_receives);
      return;
    case mpi::Collective::kPrefix:
      // Ranks 0..i, this one included: the same as 0..i-1 and its own.
      // Each rank may follow another: whole records, combined on the way.
      EncodeEntry(in.get(), o.call_t0);
      PMPI_Scan(in.get(), out.get(), 1, o.wire, o.longest, sh.dup);
      ++o.piggybacks;
      AddPartner(out.get(), &o.unpaired_receives);
      return;
    default:
      return;
  }
}

// Sorts a call's completions by posting order and takes their piggybacks.
void TakeCompletions() {
  std::sort(t_completions.begin(), t_completions.end(),
            [](const Completion& a, const Completion& b) { return a.seq < b.seq; });
  State& o = O();
  for (const Completion& c : t_completions) {
    if (!c.coll) {
      TakeCompletedRecv(c.id, c.status);
      continue;
    }
    Req& r = o.reqs[c.id];
    if (r.kind != Req::kColl) continue;
    if (r.piggy != MPI_REQUEST_NULL) {
      PMPI_Wait(&r.piggy, MPI_STATUS_IGNORE);
      if (r.partner && AddPartner(r.buf.get(), &o.unpaired_receives) && r.replace) {
        t_replace = static_cast<int>(t_n_partners) - 1;
      }
    }
    r = Req{};
  }
  t_completions.clear();
}

}  // namespace

// --- life cycle ------------------------------------------------------------------

void Start(const std::string& maps, int rank, int leader, int64_t leader_offset, int paths, bool topk,
           bool zeroing, int sample_hz) {
  State& o = O();
  o.rank = rank;
  // Zeroing: 16 more bytes a site; samples: 32 functions and 16 calling
  // contexts of 16 bytes (8 and 4 beside representative paths, whose
  // record is smaller). So fewer sites in the same record.
  Path::set_zeroing(zeroing);
  Path::set_function_limit(sample_hz > 0 ? (paths > 0 ? 8 : 32) : 0);
  Path::set_context_limit(sample_hz > 0 ? (paths > 0 ? 4 : 16) : 0);
  Path::set_site_limit(Path::SitesFitting(kWireBytes));
  if (paths > 0) {
    // The set gets what 48 sites without reductions leave of the critical
    // path's record (1,624 bytes).
    Path::set_site_limit(Path::SitesFitting(Path::kHeaderBytes + 48 * Path::kSiteBytes + Path::kRanks * Path::kRankBytes));
    g_path_room = Path::MaxWireBytes();
    o.repr = true;
    // With samples each path keeps its heaviest functions (its profile),
    // fewer intervals then.
    const size_t set_room = kWireBytes - g_path_room;
    const int functions = sample_hz > 0 ? rp::online::ProfileFunctionsFor(set_room, paths) : 0;
    o.set_config = {.k = paths,
                    .intervals = rp::online::IntervalsFor(set_room, paths, functions),
                    .select = topk ? rp::repr::Select::kTopK : rp::repr::Select::kRepr,
                    .functions = functions};
    o.set = PathSet(o.set_config);
    g_wire = g_path_room + PathSet::MaxBytes(o.set_config);
  }
  o.keys = std::make_unique<SiteKeys>(maps);
  if (sample_hz > 0) {
    o.functions = std::make_unique<FunctionKeys>(*o.keys, "librpcollect.so");
    o.sample_period = 1'000'000'000 / sample_hz;
    t_sampled_thread = true;
  }
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank reads its clock group leader's offset to rank 0.
  std::vector<int64_t> offsets(size);
  PMPI_Allgather(&leader_offset, 1, MPI_INT64_T, offsets.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  o.offset = offsets[leader];
  PMPI_Type_contiguous(static_cast<int>(g_wire), MPI_BYTE, &o.wire);
  PMPI_Type_commit(&o.wire);
  PMPI_Op_create(&CombineOp, 1, &o.longest);
  PMPI_Type_contiguous(static_cast<int>(sizeof(Head)), MPI_BYTE, &o.head);
  PMPI_Type_commit(&o.head);
  PMPI_Op_create(&CombineHeads, 1, &o.longest_head);
  CommCreated(MPI_COMM_WORLD);
  CommCreated(MPI_COMM_SELF);
  o.path = Path();  // made with or without reductions, as set above
  o.path.set_end_rank(rank);
  o.partial.reset(new char[kPartialBytes]);
}

std::string_view PartialRecord() {
  State& o = O();
  if (g_updating || !o.partial) return {};
  char* record = o.partial.get();
  std::memset(record, 0, sizeof(raw::OnlineFixed));
  auto* fixed = reinterpret_cast<raw::OnlineFixed*>(record);
  uint8_t* wire = reinterpret_cast<uint8_t*>(record + sizeof(raw::OnlineFixed));
  const size_t path_bytes = EncodeWithAddresses(o.path, o.call_t0, {wire, kWireBytes});
  const size_t padded = raw::Align8(static_cast<uint32_t>(path_bytes));
  std::memset(wire + path_bytes, 0, padded - path_bytes);
  // The path's sites with the MPI function called there; their time over
  // the ranks is unknown (no times: the profile's "all ranks" reads 0).
  auto* site = reinterpret_cast<raw::OnlineSite*>(record + sizeof(raw::OnlineFixed) + padded);
  int32_t n_sites = 0;
  for (const rp::online::SiteShare& share : o.path.sites()) {
    const uint64_t address = o.keys->Address(share.site);
    const auto slot = o.sites.find(address);
    if (address == 0 || slot == o.sites.end()) continue;
    site[n_sites++] = raw::OnlineSite{address, 0, 0, 0, slot->second.fn, 0};
  }
  const size_t size = sizeof(raw::OnlineFixed) + padded + n_sites * sizeof(raw::OnlineSite);
  fixed->h = {raw::kOnline, raw::kOnlinePartial, static_cast<uint32_t>(size)};
  fixed->start = o.start;
  fixed->end = o.call_t0;
  fixed->ranks = 0;  // none reached MPI_Finalize's answer
  fixed->path_bytes = static_cast<int32_t>(path_bytes);
  fixed->n_sites = n_sites;
  fixed->regions = 1;
  fixed->unpaired_receives = o.unpaired_receives;
  fixed->skipped_calls = o.skipped_calls;
  fixed->piggyback_bytes = o.piggyback_bytes;
  fixed->piggybacks = o.piggybacks;
  return {record, size};
}

// The path's region moved from `from` to its present one at `t` (global):
// the measured regions it entered and left.
static void Crossed(int32_t from, int64_t t) {
  State& o = O();
  for (int32_t n = from + 1; n <= o.path.region(); ++n) {
    const size_t i = (n - 1) / 2;
    if (o.region_starts.size() <= i) o.region_starts.resize(i + 1, INT64_MIN), o.region_stops.resize(i + 1, INT64_MIN);
    (n % 2 == 1 ? o.region_starts : o.region_stops)[i] = t;
  }
}

void Begin(int64_t start) {
  State& o = O();
  o.last_exit = start;
  o.start = Global(start);
  Crossed(0, o.start);
}

std::vector<char> Finish(uint64_t site, int64_t t) {
  State& o = O();
  Enter(site, mpi::kFn_MPI_Finalize, t);
  // The piggybacks still out: sends are completed; receives pre-posted
  // for payloads that never came are cancelled and counted.
  for (PendingSend& p : o.sends) PMPI_Wait(&p.request, MPI_STATUS_IGNORE);
  o.sends.clear();
  auto drop = [&](Req& r) {
    if (r.piggy == MPI_REQUEST_NULL) return;
    PMPI_Cancel(&r.piggy);
    MPI_Status st;
    PMPI_Wait(&r.piggy, &st);
    if (!IsCancelled(st)) ++o.unpaired_sends;
  };
  for (Req& r : o.reqs) {
    if (r.kind == Req::kRecv) drop(r);
    if (r.kind == Req::kColl && r.piggy != MPI_REQUEST_NULL) PMPI_Wait(&r.piggy, MPI_STATUS_IGNORE);
  }
  for (Req& r : o.orphans) drop(r);

  const MPI_Comm world = o.shadows[o.shadow_ids.Find(Key(MPI_COMM_WORLD))].dup;
  int size = 0;
  PMPI_Comm_size(world, &size);
  // The critical path: the longest of the paths entering MPI_Finalize.
  Buffer mine = NewBuffer(), longest = NewBuffer();
  EncodeEntry(mine.get(), Global(t));
  PMPI_Reduce(mine.get(), longest.get(), 1, o.wire, o.longest, 0, world);
  int64_t counts[6] = {o.unpaired_receives, o.unpaired_sends, o.skipped_calls,
                       o.piggyback_bytes,   o.piggybacks,     o.samples_used};
  int64_t sums[6] = {};
  PMPI_Reduce(counts, sums, 6, MPI_INT64_T, MPI_SUM, 0, world);
  int64_t bounds[2] = {-o.start, Global(t)}, extremes[2] = {};
  PMPI_Reduce(bounds, extremes, 2, MPI_INT64_T, MPI_MAX, 0, world);
  // The measured regions: each from its first rank's start to its last
  // rank's stop (still measuring: MPI_Finalize's entry).
  if (o.path.measuring()) {
    const int32_t from = o.path.region();
    o.path.set_region(from + 1);
    Crossed(from, Global(t));
  }
  int32_t regions = 0, mine_regions = static_cast<int32_t>(o.region_starts.size());
  PMPI_Allreduce(&mine_regions, &regions, 1, MPI_INT32_T, MPI_MAX, world);
  std::vector<int64_t> edges(2 * regions, INT64_MIN), widest(o.rank == 0 ? 2 * regions : 0);
  for (int32_t i = 0; i < mine_regions; ++i) {
    if (o.region_starts[i] != INT64_MIN) edges[2 * i] = -o.region_starts[i];
    edges[2 * i + 1] = o.region_stops[i];
  }
  PMPI_Reduce(edges.data(), widest.data(), 2 * regions, MPI_INT64_T, MPI_MAX, 0, world);

  // The run's representative paths: k of all ranks' sets as they entered
  // MPI_Finalize, chosen exactly over their union at rank 0 (as rp-repr's
  // run paths end at every rank's last call).
  std::vector<uint8_t> set_record;
  std::vector<int> set_positions;
  int set_total = 0;
  if (o.repr) {
    std::vector<uint8_t> mine_set(PathSet::MaxBytes(o.set_config));
    mine_set.resize(o.set.Encode(mine_set));
    std::vector<int> set_sizes;
    const std::vector<uint8_t> sets = GatherAtRoot(mine_set, world, &set_sizes);
    if (o.rank == 0) {
      std::vector<PathSet> all_sets(size, PathSet(o.set_config));
      std::vector<const PathSet*> others;
      size_t at = 0;
      for (int r = 0; r < size; ++r) {
        if (PathSet::Decode({sets.data() + at, static_cast<size_t>(set_sizes[r])}, o.set_config, &all_sets[r]) &&
            r > 0) {
          others.push_back(&all_sets[r]);
        }
        at += static_cast<size_t>(set_sizes[r]);
      }
      all_sets[0].Join(others, &set_positions, &set_total);
      all_sets[0].MapFunctions(FunctionAddress);
      set_record.resize(all_sets[0].WireBytes());
      all_sets[0].Encode(set_record);
    }
  }

  // Every site's time over all ranks, by key (the same on every rank), and
  // every sampled function's.
  std::vector<raw::OnlineSite> local;
  local.reserve(o.sites.size());
  for (const auto& [address, slot] : o.sites) {
    local.push_back(raw::OnlineSite{slot.key, slot.compute, slot.mpi, slot.calls, slot.fn, 0});
  }
  const std::vector<raw::OnlineSite> all = GatherAtRoot(local, world);
  std::vector<raw::OnlineFunction> local_functions;
  for (const auto& [key, ns] : o.function_time) local_functions.push_back(raw::OnlineFunction{key, ns});
  const std::vector<raw::OnlineFunction> all_functions = GatherAtRoot(local_functions, world);
  std::vector<raw::OnlineFunction> local_contexts;
  for (const auto& [key, ns] : o.context_time) local_contexts.push_back(raw::OnlineFunction{key, ns});
  const std::vector<raw::OnlineFunction> all_contexts = GatherAtRoot(local_contexts, world);
  const std::vector<uint64_t> chains = GatherContextChains(world);
  if (o.rank != 0) return {};
  std::map<uint64_t, int64_t> function_sums, context_sums;  // by key
  for (const raw::OnlineFunction& f : all_functions) function_sums[f.address] += f.compute;
  for (const raw::OnlineFunction& c : all_contexts) context_sums[c.address] += c.compute;
  // Each context: key, its total, its chain's length, then the chain as
  // rank 0's addresses (the function's first instruction plus one, the
  // callers' return addresses).
  std::vector<uint64_t> context_record;
  for (size_t at = 0; at + 2 <= chains.size();) {
    const uint64_t key = chains[at], n = chains[at + 1];
    if (at + 2 + n > chains.size()) break;
    context_record.push_back(key);
    context_record.push_back(static_cast<uint64_t>(context_sums[key]));
    context_record.push_back(n);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t k = chains[at + 2 + i];
      context_record.push_back(i == 0 ? FunctionAddress(k) : o.keys->Address(k));
    }
    at += 2 + n;
  }

  // Rank 0's record, with its own addresses for the keys.
  std::unordered_map<uint64_t, raw::OnlineSite> by_key;
  for (const raw::OnlineSite& s : all) {
    raw::OnlineSite& sum = by_key.try_emplace(s.address, raw::OnlineSite{s.address, 0, 0, 0, s.fn, 0}).first->second;
    sum.compute += s.compute, sum.mpi += s.mpi, sum.calls += s.calls;
  }
  Path path;
  int64_t end_t = 0;
  Path::Decode({longest.get(), g_path_room}, &path, &end_t);
  const size_t path_bytes = path.WireBytes();
  const size_t path_padded = raw::Align8(static_cast<uint32_t>(path_bytes));
  const size_t set_padded = raw::Align8(static_cast<uint32_t>(set_record.size()));
  const size_t positions_padded = raw::Align8(static_cast<uint32_t>(set_positions.size() * sizeof(int32_t)));
  const size_t size_all = sizeof(raw::OnlineFixed) + path_padded + by_key.size() * sizeof(raw::OnlineSite) +
                          function_sums.size() * sizeof(raw::OnlineFunction) +
                          context_record.size() * sizeof(uint64_t) + set_padded + positions_padded;
  std::vector<char> record(size_all, 0);
  auto* fixed = reinterpret_cast<raw::OnlineFixed*>(record.data());
  fixed->h = {raw::kOnline, 0, static_cast<uint32_t>(size_all)};
  fixed->start = -extremes[0];
  fixed->end = extremes[1];
  fixed->regions = regions;
  for (int32_t i = 0; i < regions; ++i) {
    if (widest[2 * i] != INT64_MIN && widest[2 * i + 1] != INT64_MIN) {
      fixed->measured += std::max<int64_t>(0, widest[2 * i + 1] + widest[2 * i]);
    }
  }
  fixed->ranks = size;
  fixed->path_bytes = static_cast<int32_t>(path_bytes);
  fixed->n_sites = static_cast<int32_t>(by_key.size());
  fixed->unpaired_receives = sums[0];
  fixed->unpaired_sends = sums[1];
  fixed->skipped_calls = sums[2];
  fixed->piggyback_bytes = sums[3];
  fixed->piggybacks = sums[4];
  fixed->samples = sums[5];
  EncodeWithAddresses(path, end_t, {reinterpret_cast<uint8_t*>(record.data() + sizeof(raw::OnlineFixed)), path_bytes});
  auto* out = reinterpret_cast<raw::OnlineSite*>(record.data() + sizeof(raw::OnlineFixed) + path_padded);
  std::vector<raw::OnlineSite> sorted;
  for (const auto& [key, s] : by_key) sorted.push_back(s);
  std::sort(sorted.begin(), sorted.end(),
            [](const raw::OnlineSite& a, const raw::OnlineSite& b) { return a.address < b.address; });
  for (raw::OnlineSite s : sorted) {
    s.address = o.keys->Address(s.address);
    *out++ = s;
  }
  fixed->n_functions = static_cast<int32_t>(function_sums.size());
  auto* function_out = reinterpret_cast<raw::OnlineFunction*>(out);
  for (const auto& [key, ns] : function_sums) *function_out++ = raw::OnlineFunction{FunctionAddress(key), ns};
  fixed->context_words = static_cast<int64_t>(context_record.size());
  std::memcpy(function_out, context_record.data(), context_record.size() * sizeof(uint64_t));
  out = reinterpret_cast<raw::OnlineSite*>(reinterpret_cast<char*>(function_out) +
                                           context_record.size() * sizeof(uint64_t));
  if (!set_record.empty()) {
    fixed->set_bytes = static_cast<int32_t>(set_record.size());
    fixed->set_total = set_total;
    fixed->set_k = o.set_config.k;
    fixed->set_topk = o.set_config.select == rp::repr::Select::kTopK;
    char* at = reinterpret_cast<char*>(out);
    std::memcpy(at, set_record.data(), set_record.size());
    at += set_padded;
    for (int p : set_positions) {
      const int32_t position = p;
      std::memcpy(at, &position, sizeof position);
      at += sizeof position;
    }
  }
  return record;
}

// --- every call -------------------------------------------------------------------

void OnSample(const void* record, size_t size) {
  const State& o = O();
  if (!o.functions || size < sizeof(raw::SampleFixed)) return;
  const auto* s = static_cast<const raw::SampleFixed*>(record);
  const uint32_t head = g_ring_head;
  if (head - g_ring_tail >= kRing) return;
  const auto* frames = reinterpret_cast<const uint64_t*>(s + 1);
  RingSample& r = g_ring[head % kRing];
  size_t at = 0;
  r.t = s->t;
  r.address = o.functions->ApplicationFrame(frames, s->depth, &at);
  r.weight = (1 + static_cast<int64_t>(s->overrun)) * o.sample_period;
  r.n_callers = 0;
  for (size_t i = at + 1; r.address != 0 && i < s->depth && r.n_callers < kCallers; ++i) {
    r.callers[r.n_callers++] = frames[i];
  }
  std::atomic_signal_fence(std::memory_order_release);
  g_ring_head = head + 1;
}

// The computation (from, to] leading to a call at return address `site`,
// `compute` ns, split over the functions of the samples inside it (a
// sample stands for the time just before it), as lib/profile's
// attribution splits it; one without samples goes whole to the rank's
// last sampled function, or the function making the call.
static void ChargeFunctions(uint64_t site, int64_t from, int64_t to, int64_t compute) {
  State& o = O();
  static std::vector<RingSample> inside;
  inside.clear();
  __int128 total = 0;
  if (t_sampled_thread) {
    const uint32_t head = g_ring_head;
    std::atomic_signal_fence(std::memory_order_acquire);
    for (uint32_t tail = g_ring_tail; tail != head; ++tail) {
      const RingSample& s = g_ring[tail % kRing];
      if (s.t > from && s.t <= to && s.address != 0) inside.push_back(s), total += s.weight;
    }
    g_ring_tail = head;
  }
  if (!o.path.measuring() || compute <= 0) return;
  using NamedBy = Path::NamedBy;
  if (inside.empty() && o.last_function != 0) {
    // Most computations between calls are shorter than a sample period:
    // the last function's (and context's) totals are at hand.
    o.path.AddFunction(o.last_function, compute, NamedBy::kLastSample);
    *o.last_function_time += compute;
    o.path.AddContext(o.last_context, compute);
    *o.last_context_time += compute;
    if (o.repr) t_parts.push_back({o.last_function, compute});
    return;
  }
  // Placing samples in functions reads a module's symbols the first time:
  // the collector's work, not the call's.
  const int64_t begin = MonotonicNs();
  struct Counted {
    int64_t begin;
    ~Counted() { t_work += MonotonicNs() - begin; }
  } counted{begin};
  static std::vector<uint64_t> chain;
  // The context of a function with `n` callers: its chain kept once.
  auto context_of = [&](uint64_t function, const uint64_t* callers, size_t n) {
    const uint64_t context = o.functions->Context(function, callers, n, &chain);
    o.context_chains.try_emplace(context, chain);
    return context;
  };
  auto charge = [&](uint64_t function, uint64_t context, int64_t ns, NamedBy by) {
    o.path.AddFunction(function, ns, by);
    o.function_time[function] += ns;
    o.path.AddContext(context, ns);
    o.context_time[context] += ns;
    if (o.repr) t_parts.push_back({function, ns});
  };
  if (inside.empty()) {
    // The call's site stands for the code (a context of the function
    // making the call and nothing above it, as rp-cpath's call-site node).
    const uint64_t function = o.functions->Key(site - 1);
    charge(function, context_of(function, nullptr, 0), compute, NamedBy::kCallSite);
    return;
  }
  o.samples_used += static_cast<int64_t>(inside.size());
  rp::Apportion split(compute, total);
  for (const RingSample& s : inside) {
    o.last_function = o.functions->Key(s.address);
    o.last_context = context_of(o.last_function, s.callers, s.n_callers);
    charge(o.last_function, o.last_context, split.Next(s.weight), NamedBy::kSamples);
  }
  o.last_function_time = &o.function_time[o.last_function];
  o.last_context_time = &o.context_time[o.last_context];
}

void Enter(uint64_t site, uint16_t fn, int64_t t0) {
  const Updating updating;
  State& o = O();
  auto [it, added] = o.sites.try_emplace(site);
  SiteSlot& slot = it->second;
  if (added) slot.key = o.keys->Key(site), slot.fn = fn;
  ++slot.calls;
  ++o.calls;
  const int64_t compute = std::max<int64_t>(0, t0 - o.last_exit);
  t_work = 0;
  t_parts.clear();
  if (o.functions) ChargeFunctions(site, o.last_exit, t0, compute);
  if (o.path.measuring()) {
    slot.compute += compute;
    o.path.AddCompute(slot.key, compute);
    if (o.repr) o.set.AddTask(o.rank, o.calls, Global(t0) - compute, Global(t0), t_parts);
  }
  o.current = &slot;
  o.call_t0 = Global(t0);
  t_n_partners = 0;
  t_replace = -1;
}

int64_t Exit(int64_t t0, int64_t exit, int64_t end) {
  const Updating updating;
  State& o = O();
  if (!t_completions.empty()) TakeCompletions();
  // MPI's time in the call: the collector's work before the payload's
  // call is not in it.
  const int64_t mpi_exit = exit - t_work;
  const int64_t mpi = std::max<int64_t>(0, mpi_exit - t0);
  if (t_n_partners == 0) {
    o.path.AddMpi(o.current->key, mpi);
  } else {
    const int32_t region = o.path.region();
    rp::online::ExitInPlace(&o.path, Global(t0), {t_partners.data(), t_n_partners}, Global(mpi_exit),
                            o.current->key, o.rank);
    if (o.path.region() != region) Crossed(region, Global(mpi_exit));
    if (o.repr) JoinPartnerSets();
  }
  // A call that entered a measured region (a start marker) counts whole
  // in the ranks' total, as the path counts its time after the partners.
  if (o.path.measuring()) o.current->mpi += mpi;
  o.last_exit = end;
  return t_work + (end - exit);
}

void Resume(int64_t t) { O().last_exit = t; }

void Control(int level, int64_t t) {
  const Updating updating;
  State& o = O();
  const bool on = level != 0;
  if (on == (o.own_region % 2 == 1)) return;
  ++o.own_region;
  // Already there when a marker from another rank came first.
  const int32_t region = o.path.region();
  if (o.own_region <= region) return;
  o.path.set_region(o.own_region);
  Crossed(region, Global(t));
}

// --- point to point ----------------------------------------------------------------

void Send(MPI_Comm comm, int dest, int tag) {
  if (dest != MPI_PROC_NULL) SendPath(ShadowOf(comm), dest, tag);
}

void Received(MPI_Comm comm, const MPI_Status* status) {
  if (status->MPI_SOURCE == MPI_PROC_NULL || IsCancelled(*status)) return;
  if (Shadow* sh = ShadowOf(comm)) TakeNow(*sh, -1, status->MPI_SOURCE, status->MPI_TAG);
  else ++O().unpaired_receives;
}

void Posted(int32_t id, MPI_Request handle, MPI_Comm comm, int peer, int tag, bool send, bool persistent) {
  if (id < 0) return;
  Req& r = ReqAt(id);
  r = Req{};
  r.kind = send ? Req::kSend : Req::kRecv;
  r.persistent = persistent;
  r.handle = handle;
  r.peer = peer;
  r.tag = tag;
  ShadowOf(comm, &r.shadow);
  if (!send && !persistent) PostRecv(id);
}

void Started(int32_t id) {
  if (id < 0 || static_cast<size_t>(id) >= O().reqs.size()) return;
  Req& r = O().reqs[id];
  if (r.kind == Req::kRecv) {
    PostRecv(id);
  } else if (r.kind == Req::kSend && r.peer != MPI_PROC_NULL) {
    SendPath(r.shadow >= 0 ? &O().shadows[r.shadow] : nullptr, r.peer, r.tag);
  }
}

void CompletedRecv(int32_t id, const MPI_Status* status) {
  if (id < 0 || static_cast<size_t>(id) >= O().reqs.size() || O().reqs[id].kind != Req::kRecv) return;
  t_completions.push_back({O().reqs[id].seq, id, *status, false});
}

void CompletedColl(int32_t id) {
  if (id < 0 || static_cast<size_t>(id) >= O().reqs.size() || O().reqs[id].kind != Req::kColl) return;
  t_completions.push_back({O().reqs[id].seq, id, MPI_Status{}, true});
}

void Freed(int32_t id) {
  State& o = O();
  if (id < 0 || static_cast<size_t>(id) >= o.reqs.size()) return;
  Req& r = o.reqs[id];
  if (r.kind == Req::kRecv) {
    // A freed receive never shows its payload: its piggyback is not taken.
    if (r.deferred) ++o.unpaired_receives;
    RemoveDeferred(r, id);
    if (r.piggy != MPI_REQUEST_NULL) o.orphans.push_back(std::move(r));
  }
  r = Req{};
}

void Matched(int32_t msg, MPI_Comm comm, const MPI_Status* status) {
  if (msg < 0) return;
  Shadow* sh = ShadowOf(comm);
  if (sh == nullptr) {
    ++O().unpaired_receives;
    return;
  }
  Buffer buf = NewBuffer();
  Take(*sh, -1, status->MPI_SOURCE, status->MPI_TAG, buf.get());
  O().messages.emplace_back(msg, std::move(buf));
}

namespace {
// The piggyback a matched probe took for message `msg` (null if none).
Buffer TakeMessage(int32_t msg) {
  auto& messages = O().messages;
  for (auto it = messages.begin(); it != messages.end(); ++it) {
    if (it->first != msg) continue;
    Buffer buf = std::move(it->second);
    messages.erase(it);
    return buf;
  }
  return nullptr;
}
}  // namespace

void MatchedReceived(int32_t msg) {
  if (msg < 0) return;
  if (Buffer buf = TakeMessage(msg)) {
    AddPartner(buf.get(), &O().unpaired_receives);
    FreeBuffer(std::move(buf));
  }
}

void MatchedPosted(int32_t msg, int32_t id) {
  if (id < 0) return;
  Req& r = ReqAt(id);
  r = Req{};
  r.kind = Req::kRecv;
  r.seq = O().next_seq++;
  if (msg >= 0) r.buf = TakeMessage(msg);
  r.have = r.buf != nullptr;
}

// --- collectives ---------------------------------------------------------------------

void Collective(uint16_t fn, MPI_Comm comm, int root, bool moved_nothing) {
  // A call that moved nothing, of counts every member passes alike: no
  // member waited for another (match::Collective::kind), nothing to combine.
  if (moved_nothing && mpi::CountsAlike(fn)) return;
  const Shadow* sh = ShadowOf(comm);
  if (sh == nullptr || sh->inter) {
    ++O().skipped_calls;
    return;
  }
  ExchangeBlocking(*sh, fn, root);
}

void CollectiveStarted(int32_t id, uint16_t fn, MPI_Comm comm, int root) {
  State& o = O();
  const Shadow* sh = ShadowOf(comm);
  if (id < 0) return;
  Req& r = ReqAt(id);
  r = Req{};
  if (sh == nullptr || sh->inter) {
    ++o.skipped_calls;
    return;
  }
  r.kind = Req::kColl;
  r.seq = o.next_seq++;
  r.buf = NewBuffer();
  r.sendbuf = NewBuffer();
  EncodeEntry(r.sendbuf.get(), o.call_t0);
  int me = 0;
  PMPI_Comm_rank(sh->dup, &me);
  switch (mpi::kFunctions[fn].collective) {
    case mpi::Collective::kAll:
      PMPI_Iallreduce(r.sendbuf.get(), r.buf.get(), 1, o.wire, o.longest, sh->dup, &r.piggy);
      r.partner = true;
      r.replace = true;
      break;
    case mpi::Collective::kRootOut:
      // The root's entry goes out in place: sendbuf is its buffer.
      std::swap(r.buf, r.sendbuf);
      PMPI_Ibcast(r.buf.get(), 1, o.wire, root, sh->dup, &r.piggy);
      r.partner = me != root;
      break;
    case mpi::Collective::kRootIn:
      PMPI_Ireduce(r.sendbuf.get(), r.buf.get(), 1, o.wire, o.longest, root, sh->dup, &r.piggy);
      r.partner = me == root;
      break;
    case mpi::Collective::kPrefix:
      PMPI_Iscan(r.sendbuf.get(), r.buf.get(), 1, o.wire, o.longest, sh->dup, &r.piggy);
      r.partner = true;
      break;
    default:
      r = Req{};
      return;
  }
  ++o.piggybacks;
}

// --- communicators ---------------------------------------------------------------------

void CommCreated(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return;
  State& o = O();
  Shadow sh;
  PMPI_Comm_dup(comm, &sh.dup);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  sh.inter = inter != 0;
  int32_t index = o.shadow_ids.Find(Key(comm));
  if (index < 0) {
    index = static_cast<int32_t>(o.shadows.size());
    o.shadows.push_back(std::move(sh));
    o.shadow_ids.Put(Key(comm), index);
  } else {
    o.shadows[index] = std::move(sh);
  }
}

void CommFreed(MPI_Comm comm) {
  State& o = O();
  const int32_t index = o.shadow_ids.Erase(Key(comm));
  if (index < 0) return;
  // Requests still naming this shadow keep its index; the slot is not reused.
  if (o.shadows[index].dup != MPI_COMM_NULL) PMPI_Comm_free(&o.shadows[index].dup);
  o.shadows[index].deferred.clear();
}

}  // namespace rp::collector::online
