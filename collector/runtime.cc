#include "collector/runtime.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "collector/handle_map.h"
#include "collector/clock_sync.h"
#include "collector/fortran.h"
#include "collector/online.h"
#include "collector/options.h"
#include "collector/proc_maps.h"
#include "collector/sampler.h"

namespace rp::collector {

thread_local int t_depth = 0;
bool g_recording = false;
// Samples go to the online path too (RP_ONLINE with RP_SAMPLE_HZ > 0).
bool g_online_samples = false;
bool g_ticks = false;

namespace {

template <typename Handle>
uint64_t Key(Handle handle) {
  static_assert(sizeof(Handle) <= sizeof(uint64_t));
  uint64_t key = 0;
  std::memcpy(&key, &handle, sizeof handle);
  return key;
}

// Taken only when the application asked for MPI_THREAD_MULTIPLE.
class SpinLock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  bool try_lock() { return !flag_.test_and_set(std::memory_order_acquire); }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

struct RequestInfo {
  uint64_t handle = 0;
  ReqKind kind = ReqKind::kOther;
  bool persistent = false;
  bool live = false;    // has an id (until completed, or freed if persistent)
  bool active = false;  // started and not completed
  int32_t older = -1;   // the previous live request with the same handle
  int32_t peer = -1;
  int32_t tag = -1;
  int64_t bytes = 0;
  int32_t comm = -1;  // index into State::comms, for resolving a status source
};

struct CommInfo {
  std::vector<int32_t> members;  // world rank by comm rank
  std::vector<int32_t> remote;   // inter-communicators: the remote group
};

struct MessageInfo {
  int32_t peer, tag;
  int64_t bytes;
};

struct State {
  Options options;
  int rank = -1;
  int world_size = 0;
  int fd = -1;
  bool threaded = false;
  bool finished = false;
  bool trace = true;  // events go to the file (not with RP_TRACE=0, nor without a file)
  SpinLock lock;
  std::vector<char> buffer;
  size_t used = 0;
  int64_t events = 0;
  int64_t last_calibration = 0;  // ticks

  HandleMap comm_ids;            // MPI_Comm -> index into comms
  std::vector<CommInfo> comms;   // index = rank-local comm id
  HandleMap request_ids;         // MPI_Request -> index into requests
  std::vector<RequestInfo> requests;
  std::vector<int32_t> free_requests;
  HandleMap message_ids;
  std::vector<MessageInfo> messages;
  std::vector<int32_t> free_messages;
  HandleMap win_ids;             // MPI_Win -> index into wins
  std::vector<std::vector<int32_t>> wins;
  HandleMap file_ids;
  int32_t next_file = 0;

  ClockGroups clock_groups;  // who shares this rank's clock; found at MPI_Init
  bool started = false;      // StartRecording ran (and its collectives)
};

State& S() {
  static State* state = new State();  // never destroyed: used from atexit and signals
  return *state;
}

// Arrays of the event being built on this thread.
thread_local std::vector<int32_t> t_completed, t_started;
thread_local std::vector<raw::ResolvedEntry> t_resolved;

// --- buffer and file --------------------------------------------------------

void WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t put = ::write(fd, data, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return;  // disk full or closed: nothing sensible to do in a wrapper
    data += put;
    n -= put;
  }
}

// A (ticks, ns) pair: the counter read on both sides of the clock, and
// read again when the two reads lie far apart (the rank was descheduled
// between them), so that each pair is good to a fraction of a microsecond.
raw::CalibRecord Calibration() {
  raw::CalibRecord calib{};
  calib.h = {raw::kCalib, 0, sizeof calib};
  int64_t closest = INT64_MAX;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const int64_t before = Now();
    const int64_t ns = MonotonicNs();
    const int64_t after = Now();
    if (after - before < closest) {
      closest = after - before;
      calib.ticks = before + (after - before) / 2;
      calib.ns = ns;
    }
    if (!g_ticks || closest < 4096) break;  // ~1 us at 4 GHz
  }
  return calib;
}

// Writes the buffer, ending it with a tick/ns calibration pair so that the
// merge can convert the times of every buffer that reached the disk.
void FlushLocked(State& s) {
  if (s.fd < 0) return;
  if (g_ticks) {
    const raw::CalibRecord calib = Calibration();
    if (s.used + sizeof calib > s.buffer.size()) {
      WriteAll(s.fd, s.buffer.data(), s.used);
      s.used = 0;
    }
    std::memcpy(s.buffer.data() + s.used, &calib, sizeof calib);
    s.used += sizeof calib;
  }
  if (s.used > 0) WriteAll(s.fd, s.buffer.data(), s.used);
  s.used = 0;
}

// Room for `size` bytes at the end of the buffer, flushing first if needed.
char* Reserve(State& s, size_t size) {
  if (s.used + size > s.buffer.size()) {
    FlushLocked(s);
    if (size > s.buffer.size()) s.buffer.resize(size);
  }
  return s.buffer.data() + s.used;
}

void AppendRecord(State& s, const void* data, size_t size) {
  char* out = Reserve(s, size);
  std::memcpy(out, data, size);
  s.used += size;
}

struct Locked {
  explicit Locked(State& s) : s(s) {
    if (s.threaded) s.lock.lock();
  }
  ~Locked() {
    if (s.threaded) s.lock.unlock();
  }
  State& s;
};

std::vector<int32_t> WorldRanksOf(MPI_Group group);
void AppendComm(State& s, int32_t local_id, int32_t parent, raw::CommKind kind, const CommInfo& info);

int WorldRankOf(const std::vector<int32_t>& group, int rank) {
  if (rank == MPI_ANY_SOURCE) return -1;
  if (rank == MPI_PROC_NULL) return -2;
  if (rank < 0 || static_cast<size_t>(rank) >= group.size()) return -3;  // MPI_ROOT etc.
  return group[rank];
}

// Records a communicator's members (world ranks) and gives it the next
// rank-local id; the merge unifies ids across ranks by membership and
// creation order.
int32_t RegisterCommLocked(State& s, MPI_Comm comm, MPI_Comm parent, raw::CommKind kind) {
  if (comm == MPI_COMM_NULL) return -1;
  CommInfo info;
  MPI_Group group;
  PMPI_Comm_group(comm, &group);
  info.members = WorldRanksOf(group);
  PMPI_Group_free(&group);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    MPI_Group remote;
    PMPI_Comm_remote_group(comm, &remote);
    info.remote = WorldRanksOf(remote);
    PMPI_Group_free(&remote);
  }
  const int32_t id = static_cast<int32_t>(s.comms.size());
  const int32_t parent_id = parent == MPI_COMM_NULL ? -1 : s.comm_ids.Find(Key(parent));
  AppendComm(s, id, parent == MPI_COMM_WORLD ? 0 : parent_id, kind, info);
  s.comms.push_back(std::move(info));
  s.comm_ids.Put(Key(comm), id);
  return id;
}

int32_t CommIndex(State& s, MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return 0;
  const int32_t index = s.comm_ids.Find(Key(comm));
  if (index >= 0) return index;
  if (comm == MPI_COMM_NULL) return -1;
  // A communicator we did not see created (made through PMPI by a library,
  // or still completing an MPI_Comm_idup): register it on first use.
  return RegisterCommLocked(s, comm, MPI_COMM_NULL, raw::kOtherComm);
}

const std::vector<int32_t>& PeerGroup(State& s, int32_t index) {
  const CommInfo& info = s.comms[index];
  return info.remote.empty() ? info.members : info.remote;
}

std::vector<int32_t> WorldRanksOf(MPI_Group group) {
  int n = 0;
  PMPI_Group_size(group, &n);
  std::vector<int32_t> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i;
  MPI_Group world;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Group_translate_ranks(group, n, in.data(), world, out.data());
  PMPI_Group_free(&world);
  return out;
}

void AppendComm(State& s, int32_t local_id, int32_t parent, raw::CommKind kind, const CommInfo& info) {
  const uint32_t size = raw::Align8(sizeof(raw::CommFixed) +
                                    4 * (info.members.size() + info.remote.size()));
  std::vector<char> record(size, 0);
  auto* fixed = reinterpret_cast<raw::CommFixed*>(record.data());
  fixed->h = {raw::kComm, 0, size};
  fixed->local_id = local_id;
  fixed->parent = parent;
  fixed->kind = kind;
  fixed->size = static_cast<int32_t>(info.members.size());
  fixed->remote_size = static_cast<int32_t>(info.remote.size());
  char* p = record.data() + sizeof(raw::CommFixed);
  std::memcpy(p, info.members.data(), 4 * info.members.size());
  std::memcpy(p + 4 * info.members.size(), info.remote.data(), 4 * info.remote.size());
  AppendRecord(s, record.data(), size);
}

void AppendEnd(State& s, int finalized) {
  raw::EndRecord end{};
  end.h = {raw::kEnd, 0, sizeof end};
  end.events = s.events;
  SamplerCounts counts = SamplerTotals();
  end.samples = counts.samples;
  end.samples_in_mpi = counts.in_mpi;
  end.overhead_outside = counts.time;
  end.finalized = finalized;
  AppendRecord(s, &end, sizeof end);
}

// --- crash safety -----------------------------------------------------------

constexpr int kFatalSignals[] = {SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGQUIT, SIGILL};
struct sigaction g_previous[sizeof kFatalSignals / sizeof kFatalSignals[0]];

// Writes out what is buffered (only whole records), then lets the signal do
// what it would have done. write() is async-signal-safe.
void OnFatalSignal(int sig) {
  State& s = S();
  StopSampler();
  if (!s.finished && s.fd >= 0) {
    raw::EndRecord end{};
    end.h = {raw::kEnd, 0, sizeof end};
    end.events = s.events;
    end.overhead_outside = SamplerTotals().time;  // atomics: async-signal-safe
    end.finalized = 0;
    WriteAll(s.fd, s.buffer.data(), s.used);
    s.used = 0;
    if (online::g_on) {
      const std::string_view path = online::PartialRecord();
      WriteAll(s.fd, path.data(), path.size());
    }
    if (g_ticks) {
      const raw::CalibRecord calib = Calibration();  // clock_gettime is async-signal-safe
      WriteAll(s.fd, reinterpret_cast<const char*>(&calib), sizeof calib);
    }
    WriteAll(s.fd, reinterpret_cast<const char*>(&end), sizeof end);
    s.finished = true;
  }
  for (size_t i = 0; i < sizeof kFatalSignals / sizeof kFatalSignals[0]; ++i) {
    if (kFatalSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  }
  raise(sig);
}

void InstallSignalHandlers() {
  for (size_t i = 0; i < sizeof kFatalSignals / sizeof kFatalSignals[0]; ++i) {
    struct sigaction action {};
    action.sa_handler = OnFatalSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(kFatalSignals[i], &action, &g_previous[i]);
  }
}

// A rank that exits without MPI_Finalize still leaves its data.
void OnExit() {
  State& s = S();
  if (s.finished || s.fd < 0) return;
  g_recording = false;
  StopSampler();
  Locked lock(s);
  if (online::g_on) {
    online::g_on = false;
    const std::string_view path = online::PartialRecord();
    if (!path.empty()) AppendRecord(s, path.data(), path.size());
  }
  AppendEnd(s, 0);
  FlushLocked(s);
  s.finished = true;
}

void AppendText(State& s, raw::RecordKind kind, const std::string& text) {
  raw::TextFixed fixed{};
  const uint32_t size = raw::Align8(sizeof fixed + text.size());
  fixed.h = {kind, 0, size};
  fixed.length = static_cast<uint32_t>(text.size());
  char* out = Reserve(s, size);
  std::memset(out, 0, size);
  std::memcpy(out, &fixed, sizeof fixed);
  std::memcpy(out + sizeof fixed, text.data(), text.size());
  s.used += size;
}

void AppendMaps(State& s) { AppendText(s, raw::kMaps, ExecutableMappings()); }

// The kernel's boot id: processes of one host with the same one read the
// same CLOCK_MONOTONIC. Left empty when it cannot be read.
void ReadBootId(char* out, size_t size) {
  const int fd = ::open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  const ssize_t n = ::read(fd, out, size - 1);
  ::close(fd);
  out[n > 0 ? n : 0] = '\0';
  if (char* newline = std::strchr(out, '\n')) *newline = '\0';
}

// A measurement only from rank 0 and the leaders of the other clock groups
// (clock_sync.h): the rest read their leader's clock.
void AppendClock(State& s, int when, const std::optional<ClockOffset>& measured) {
  if (!measured) return;
  const ClockOffset& offset = *measured;
  raw::ClockRecord clock{};
  clock.h = {raw::kClock, 0, sizeof clock};
  clock.when = when;
  clock.t = offset.local_time;
  clock.offset = offset.offset;
  clock.rtt = offset.rtt;
  AppendRecord(s, &clock, sizeof clock);
}

// Ticks between calibration pairs inside the stream (~0.1 s at 3 GHz), so
// that a file cut short still converts to nanoseconds.
constexpr int64_t kCalibrationTicks = int64_t{1} << 28;

// Room kept free in the buffer after an event: samples, appended from a
// signal handler between calls, then rarely have to write it during the
// application's computation.
size_t Headroom(const State& s) { return std::min<size_t>(64 << 10, s.buffer.size() / 4); }

// Packs one event (raw_format.h) with this thread's arrays into the buffer.
// `overhead` is the collector's own work inside [t0, t1]; a buffer write
// this call makes is added to it (and to the call: the application gets
// control back after it).
// Returns the event's end: later than t1 when it wrote the buffer.
int64_t AppendEvent(State& s, uint16_t fn, uint64_t site, int64_t t0, int64_t t1, int64_t overhead, uint16_t present,
                    int64_t* fields) {
  if (g_ticks && t1 - s.last_calibration > kCalibrationTicks) {
    const raw::CalibRecord calib = Calibration();
    s.last_calibration = calib.ticks;
    AppendRecord(s, &calib, sizeof calib);
  }
  constexpr size_t kMostEvent = 4096;  // an event's fixed part and fields; arrays are counted below
  const size_t arrays = 4 * t_completed.size() + sizeof(raw::ResolvedEntry) * t_resolved.size() + 4 * t_started.size();
  if (s.used > 0 && s.used + kMostEvent + arrays + Headroom(s) > s.buffer.size()) {
    FlushLocked(s);
    const int64_t now = Now();
    overhead += now - t1;
    t1 = now;
  }
  if (overhead > 0) {
    const raw::OverheadRecord own{{raw::kOverhead, 0, sizeof(raw::OverheadRecord)}, overhead};
    AppendRecord(s, &own, sizeof own);
  }
  raw::EventFixed e{};
  const int64_t duration = t1 - t0;
  if (duration < 0 || duration >= UINT32_MAX) {
    present |= 1u << raw::kDuration64;
    fields[raw::kDuration64] = duration;
    e.duration = UINT32_MAX;
  } else {
    e.duration = static_cast<uint32_t>(duration);
  }
  uint32_t size = sizeof e;
  for (uint32_t bits = present; bits; bits &= bits - 1) {
    size += raw::Is64(static_cast<raw::EventField>(__builtin_ctz(bits))) ? 8 : 4;
  }
  size += 4 * t_completed.size() + sizeof(raw::ResolvedEntry) * t_resolved.size() +
          4 * t_started.size();
  size = raw::Align8(size);
  e.h = {raw::kEvent, fn, size};
  e.present = present;
  e.n_completed = static_cast<uint16_t>(t_completed.size());
  e.n_resolved = static_cast<uint16_t>(t_resolved.size());
  e.n_reqs = static_cast<uint16_t>(t_started.size());
  e.t0 = t0;
  e.site = site;
  char* out = Reserve(s, size);
  char* p = out;
  std::memcpy(p, &e, sizeof e);
  p += sizeof e;
  for (uint32_t bits = present; bits; bits &= bits - 1) {
    const int field = __builtin_ctz(bits);
    if (raw::Is64(static_cast<raw::EventField>(field))) {
      std::memcpy(p, &fields[field], 8);
      p += 8;
    } else {
      const int32_t v = static_cast<int32_t>(fields[field]);
      std::memcpy(p, &v, 4);
      p += 4;
    }
  }
  if (!t_completed.empty() || !t_resolved.empty() || !t_started.empty()) {
    std::memcpy(p, t_completed.data(), 4 * t_completed.size());
    p += 4 * t_completed.size();
    std::memcpy(p, t_resolved.data(), sizeof(raw::ResolvedEntry) * t_resolved.size());
    p += sizeof(raw::ResolvedEntry) * t_resolved.size();
    std::memcpy(p, t_started.data(), 4 * t_started.size());
    p += 4 * t_started.size();
    t_completed.clear();
    t_resolved.clear();
    t_started.clear();
  }
  while (p < out + size) *p++ = 0;
  s.used += size;
  ++s.events;
  return t1;
}

void AppendPlainEvent(State& s, uint16_t fn, const void* site, int64_t t0, int64_t t1, int64_t overhead) {
  int64_t fields[raw::kFieldCount];
  AppendEvent(s, fn, s.options.sites ? reinterpret_cast<uint64_t>(site) : 0, t0, t1, overhead, 0, fields);
}

// The timer is chosen when the library loads: MPI_Init's own start is taken
// before anything else runs, and every time of a rank must use one timer.
__attribute__((constructor)) void ChooseTimer() { g_ticks = ReadOptions().timer_ticks; }

}  // namespace

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

int64_t Bytes(int64_t count, MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL || count <= 0) return 0;
  int size = 0;
  PMPI_Type_size(type, &size);
  return count * size;
}

int64_t SumBytes(const int* counts, int n, MPI_Datatype type, const MPI_Datatype* types) {
  if (counts == nullptr) return 0;
  int64_t total = 0;
  for (int i = 0; i < n; ++i) total += Bytes(counts[i], types ? types[i] : type);
  return total;
}

int64_t StatusBytes(const MPI_Status* status) {
  int count = 0;
  PMPI_Get_count(status, MPI_BYTE, &count);
  return count == MPI_UNDEFINED ? 0 : count;
}

int CommRank(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}

bool IsRoot(MPI_Comm comm, int root) {
  if (root == MPI_ROOT) return true;
  if (root < 0) return false;  // MPI_PROC_NULL on an inter-communicator
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return !inter && CommRank(comm) == root;
}

// Open MPI's Fortran MPI_IN_PLACE is the address of this common block.
extern "C" int mpi_fortran_in_place_ __attribute__((weak));

bool IsInPlace(const void* buffer) {
  return buffer == MPI_IN_PLACE || (&mpi_fortran_in_place_ != nullptr && buffer == &mpi_fortran_in_place_);
}

void MissingFortranMpi(const char* symbol) {
  std::fprintf(stderr, "librpcollect: %s not found: is the Fortran MPI library loaded?\n", symbol);
  std::abort();
}

int PeerCount(MPI_Comm comm, bool neighbourhood, bool incoming) {
  int n = 0;
  if (neighbourhood) {
    int topology = MPI_UNDEFINED;
    PMPI_Topo_test(comm, &topology);
    if (topology == MPI_CART) {
      int dims = 0;
      PMPI_Cartdim_get(comm, &dims);
      return 2 * dims;
    }
    if (topology == MPI_GRAPH) {
      int rank = 0;
      PMPI_Comm_rank(comm, &rank);
      PMPI_Graph_neighbors_count(comm, rank, &n);
      return n;
    }
    if (topology == MPI_DIST_GRAPH) {
      int in = 0, out = 0, weighted = 0;
      PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
      return incoming ? in : out;
    }
    return 0;
  }
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) PMPI_Comm_remote_size(comm, &n);
  else PMPI_Comm_size(comm, &n);
  return n;
}

void Call::Comm(MPI_Comm comm) {
  State& s = S();
  Locked lock(s);
  const int32_t index = CommIndex(s, comm);
  if (index >= 0) Set(raw::kComm32, index);
}

void Call::Peer(MPI_Comm comm, int rank) {
  State& s = S();
  Locked lock(s);
  const int32_t index = CommIndex(s, comm);
  if (index < 0) return;
  Set(raw::kComm32, index);
  Set(raw::kPeer32, WorldRankOf(PeerGroup(s, index), rank));
}

void Call::Rpeer(MPI_Comm comm, int rank) {
  State& s = S();
  Locked lock(s);
  const int32_t index = CommIndex(s, comm);
  if (index >= 0) Set(raw::kRpeer32, WorldRankOf(PeerGroup(s, index), rank));
}

void Call::Root(MPI_Comm comm, int root) {
  State& s = S();
  Locked lock(s);
  const int32_t index = CommIndex(s, comm);
  if (index < 0) return;
  Set(raw::kComm32, index);
  // Inter-communicator roots are MPI_ROOT / MPI_PROC_NULL on the root side.
  if (root == MPI_ROOT) Set(raw::kRoot32, s.rank);
  else if (root >= 0) Set(raw::kRoot32, WorldRankOf(PeerGroup(s, index), root));
}

void Call::Op(MPI_Op op) {
  static const MPI_Op kOps[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,   MPI_LAND,
                                MPI_BAND, MPI_LOR,  MPI_BOR,    MPI_LXOR,   MPI_BXOR,
                                MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; ++i) {
    if (op == kOps[i]) {
      Set(raw::kOp32, static_cast<int64_t>(i));
      return;
    }
  }
  Set(raw::kOp32, -1);
}

void Call::Win(MPI_Win win) {
  State& s = S();
  Locked lock(s);
  int32_t id = s.win_ids.Find(Key(win));
  if (id < 0 && win != MPI_WIN_NULL) {
    MPI_Group group;
    PMPI_Win_get_group(win, &group);
    id = static_cast<int32_t>(s.wins.size());
    s.wins.push_back(WorldRanksOf(group));
    PMPI_Group_free(&group);
    s.win_ids.Put(Key(win), id);
  }
  if (id >= 0) Set(raw::kWin32, id);
}

void Call::Fh(MPI_File fh) {
  State& s = S();
  Locked lock(s);
  int32_t id = s.file_ids.Find(Key(fh));
  if (id < 0 && fh != MPI_FILE_NULL) {
    id = s.next_file++;
    s.file_ids.Put(Key(fh), id);
  }
  if (id >= 0) Set(raw::kFh32, id);
}

void Call::Completed(int32_t id) { t_completed.push_back(id); }
void Call::Started(int32_t id) { t_started.push_back(id); }
void Call::Resolved(int32_t id, int peer, int tag, int64_t bytes) {
  t_resolved.push_back(raw::ResolvedEntry{id, peer, tag, 0, bytes});
}

void Call::Start() {
  t0_ = Now();
  if (online::g_on) online::Enter(site_, fn_, t0_);
}

void Call::Commit() {
  State& s = S();
  int64_t overhead = 0;
  if (online::g_on) {
    // The online work after MPI returned is the collector's: the call ends
    // for the application when it is done.
    const int64_t end = Now();
    overhead = online::Exit(t0_, t1_, end);
    t1_ = end;
  }
  if (!s.trace) {
    t_completed.clear(), t_resolved.clear(), t_started.clear();
    return;
  }
  Locked lock(s);
  const int64_t end = AppendEvent(s, fn_, s.options.sites ? site_ : 0, t0_, t1_, overhead, present_, fields_);
  // A buffer write is the collector's work too: computation starts after it.
  if (online::g_on && end != t1_) online::Resume(end);
}

// --- requests ---------------------------------------------------------------

int32_t NewRequest(MPI_Request handle, ReqKind kind, int32_t peer, int tag, int64_t bytes,
                   MPI_Comm comm, bool persistent) {
  if (handle == MPI_REQUEST_NULL) return -1;
  State& s = S();
  Locked lock(s);
  int32_t id;
  if (!s.free_requests.empty()) {
    id = s.free_requests.back();
    s.free_requests.pop_back();
  } else {
    id = static_cast<int32_t>(s.requests.size());
    s.requests.emplace_back();
  }
  RequestInfo& r = s.requests[id];
  r = RequestInfo{Key(handle), kind, persistent, true, !persistent, s.request_ids.Find(Key(handle)),
                  peer, tag, bytes, comm == MPI_COMM_NULL ? -1 : CommIndex(s, comm)};
  s.request_ids.Put(Key(handle), id);
  return id;
}

int32_t RequestId(MPI_Request handle) {
  if (handle == MPI_REQUEST_NULL) return -1;
  State& s = S();
  Locked lock(s);
  return s.request_ids.Find(Key(handle));
}

void RequestIds(const MPI_Request* handles, int n, int32_t* ids) {
  State& s = S();
  Locked lock(s);
  for (int i = 0; i < n; ++i) {
    ids[i] = handles[i] == MPI_REQUEST_NULL ? -1 : s.request_ids.Find(Key(handles[i]));
  }
  // A handle repeated in the array stands for several requests: walk its
  // chain, so that each occurrence gets its own id (newest last, as posted).
  for (int i = 0; i < n; ++i) {
    if (ids[i] < 0) continue;
    int repeats = 0;
    for (int j = 0; j < i; ++j) repeats += handles[j] == handles[i];
    if (repeats == 0) continue;
    int32_t id = ids[i];
    for (int k = 0; k < repeats && id >= 0; ++k) id = s.requests[id].older;
    ids[i] = id;
  }
}

namespace {

// Removes `id` from its handle's chain of live requests.
void Unlink(State& s, int32_t id) {
  RequestInfo& r = s.requests[id];
  const int32_t head = s.request_ids.Find(r.handle);
  if (head == id) {
    if (r.older >= 0) s.request_ids.Put(r.handle, r.older);
    else s.request_ids.Erase(r.handle);
  } else {
    for (int32_t at = head; at >= 0; at = s.requests[at].older) {
      if (s.requests[at].older == id) {
        s.requests[at].older = r.older;
        break;
      }
    }
  }
  r.live = false;
  r.active = false;
  r.older = -1;
  s.free_requests.push_back(id);
}

}  // namespace

void CompleteRequest(Call& call, MPI_Request old_handle, int32_t id, const MPI_Status* status) {
  if (id < 0) return;
  State& s = S();
  Locked lock(s);
  RequestInfo& r = s.requests[id];
  if (!r.live || !r.active) return;  // an inactive persistent request completes nothing
  (void)old_handle;
  call.Completed(id);
  if (online::g_on) {
    if (r.kind == ReqKind::kRecv && status != nullptr && status != MPI_STATUS_IGNORE) online::CompletedRecv(id, status);
    if (r.kind == ReqKind::kColl) online::CompletedColl(id);
  }
  if (r.kind == ReqKind::kRecv && status != nullptr && status != MPI_STATUS_IGNORE && r.comm >= 0) {
    int cancelled = 0;
    PMPI_Test_cancelled(status, &cancelled);
    int count = 0;
    PMPI_Get_count(status, MPI_BYTE, &count);
    const int peer = WorldRankOf(PeerGroup(s, r.comm), status->MPI_SOURCE);
    if (!cancelled && (peer != r.peer || status->MPI_TAG != r.tag || count != r.bytes)) {
      call.Resolved(id, peer, status->MPI_TAG, count);
    }
  }
  r.active = false;
  if (!r.persistent) Unlink(s, id);
}

void FreeRequest(MPI_Request handle) {
  State& s = S();
  Locked lock(s);
  const int32_t id = s.request_ids.Find(Key(handle));
  if (id < 0) return;
  if (online::g_on) online::Freed(id);
  Unlink(s, id);
}

int32_t StartRequest(MPI_Request handle) {
  State& s = S();
  Locked lock(s);
  const int32_t id = s.request_ids.Find(Key(handle));
  if (id >= 0) s.requests[id].active = true;
  return id;
}

// --- matched messages -------------------------------------------------------

int32_t NewMessage(MPI_Message handle, const MPI_Status* status, MPI_Comm comm) {
  if (handle == MPI_MESSAGE_NULL || handle == MPI_MESSAGE_NO_PROC) return -1;
  State& s = S();
  Locked lock(s);
  int count = 0;
  PMPI_Get_count(status, MPI_BYTE, &count);
  const int32_t index = CommIndex(s, comm);
  MessageInfo info{index >= 0 ? WorldRankOf(PeerGroup(s, index), status->MPI_SOURCE) : -1,
                   status->MPI_TAG, count};
  int32_t id;
  if (!s.free_messages.empty()) {
    id = s.free_messages.back();
    s.free_messages.pop_back();
    s.messages[id] = info;
  } else {
    id = static_cast<int32_t>(s.messages.size());
    s.messages.push_back(info);
  }
  s.message_ids.Put(Key(handle), id);
  return id;
}

int32_t TakeMessage(MPI_Message handle, int* peer, int* tag, int64_t* bytes) {
  State& s = S();
  Locked lock(s);
  const int32_t id = s.message_ids.Erase(Key(handle));
  if (id < 0) return -1;
  *peer = s.messages[id].peer;
  *tag = s.messages[id].tag;
  *bytes = s.messages[id].bytes;
  s.free_messages.push_back(id);
  return id;
}

// --- communicators, windows, files -------------------------------------------

int32_t RegisterComm(MPI_Comm comm, MPI_Comm parent, raw::CommKind kind) {
  State& s = S();
  Locked lock(s);
  // Every member makes it in this call: its duplicate is made here too.
  if (online::g_on) online::CommCreated(comm);
  return RegisterCommLocked(s, comm, parent, kind);
}

void ForgetComm(MPI_Comm comm) {
  State& s = S();
  Locked lock(s);
  if (online::g_on) online::CommFreed(comm);
  s.comm_ids.Erase(Key(comm));
}

int32_t RegisterWin(MPI_Win win, MPI_Comm comm) {
  State& s = S();
  Locked lock(s);
  s.win_ids.Erase(Key(win));  // a handle value can be reused after MPI_Win_free
  const int32_t index = CommIndex(s, comm);
  const int32_t id = static_cast<int32_t>(s.wins.size());
  s.wins.push_back(index >= 0 ? s.comms[index].members : std::vector<int32_t>{});
  s.win_ids.Put(Key(win), id);
  return id;
}

void ForgetWin(MPI_Win win) {
  State& s = S();
  Locked lock(s);
  s.win_ids.Erase(Key(win));
}

int32_t RegisterFile(MPI_File fh) {
  State& s = S();
  Locked lock(s);
  const int32_t id = s.next_file++;
  s.file_ids.Put(Key(fh), id);
  return id;
}

void ForgetFile(MPI_File fh) {
  State& s = S();
  Locked lock(s);
  s.file_ids.Erase(Key(fh));
}

int WinWorldRank(MPI_Win win, int rank) {
  State& s = S();
  Locked lock(s);
  const int32_t id = s.win_ids.Find(Key(win));
  if (id < 0) return -3;
  return WorldRankOf(s.wins[id], rank);
}

// --- life cycle --------------------------------------------------------------

void StartRecording(uint16_t init_fn, const void* site, int64_t init_t0, int64_t init_t1,
                    int thread_level) {
  State& s = S();
  s.options = ReadOptions();
  PMPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &s.world_size);
  s.threaded = thread_level == MPI_THREAD_MULTIPLE;

  raw::FileHeader header{};
  std::memcpy(header.magic, raw::kMagic, sizeof header.magic);
  header.version = raw::kVersion;
  header.rank = s.rank;
  header.world_size = s.world_size;
  header.pid = ::getpid();
  header.thread_level = thread_level;
  header.sample_hz = s.options.sample_hz;
  header.clock_id = CLOCK_MONOTONIC;
  header.timer = g_ticks ? raw::kTimerTicks : raw::kTimerNs;
  ::gethostname(header.host, sizeof header.host - 1);
  // Without a boot id no two ranks are taken to share a clock.
  if (s.options.shared_clock) ReadBootId(header.boot_id, sizeof header.boot_id);
  // Collective: every rank takes part, also one that cannot record (the
  // others would wait for it).
  s.clock_groups = FindClockGroups(header.host, header.boot_id);
  const std::optional<ClockOffset> init_offset = MeasureClockOffset(s.clock_groups, s.options.clock_exchanges);
  s.started = true;
  // The online path: on every rank, with a file or not (a rank that kept
  // out would leave the others waiting for its piggybacks).
  const bool online = s.options.online && !s.threaded;
  if (s.options.online && s.threaded && s.rank == 0) {
    std::fprintf(stderr, "librpcollect: the online critical path needs a thread level below "
                         "MPI_THREAD_MULTIPLE (one path per process); not computing it\n");
  }
  if (online) {
    online::Start(ExecutableMappings(), s.rank, s.clock_groups.leader, init_offset ? init_offset->offset : 0,
                  s.options.online_paths, s.options.online_topk, s.options.online_zeroing, s.options.sample_hz);
  }
  s.trace = s.options.trace;

  ::mkdir(s.options.dir.c_str(), 0755);
  const std::string path = s.options.dir + "/rank-" + std::to_string(s.rank) + ".rpraw";
  s.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (s.fd < 0) {
    std::fprintf(stderr, "librpcollect: rank %d: cannot create %s: %s; not recording\n", s.rank,
                 path.c_str(), std::strerror(errno));
    if (!online) return;
    s.trace = false;
    online::Begin(Now());
    online::g_on = g_recording = true;
    return;
  }
  s.buffer.resize(s.options.buffer_bytes);
  AppendRecord(s, &header, sizeof header);
  if (g_ticks) {
    const raw::CalibRecord calib = Calibration();
    s.last_calibration = calib.ticks;
    AppendRecord(s, &calib, sizeof calib);
  }

  CommInfo world;
  world.members.resize(s.world_size);
  for (int r = 0; r < s.world_size; ++r) world.members[r] = r;
  AppendComm(s, 0, -1, raw::kWorld, world);
  s.comms.push_back(std::move(world));
  s.comm_ids.Put(Key(MPI_COMM_WORLD), 0);
  CommInfo self;
  self.members = {s.rank};
  AppendComm(s, 1, -1, raw::kSelf, self);
  s.comms.push_back(std::move(self));
  s.comm_ids.Put(Key(MPI_COMM_SELF), 1);

  AppendText(s, raw::kCmdline, CommandLine());
  AppendMaps(s);
  AppendClock(s, 0, init_offset);
  if (g_ticks) {
    // A second pair, after the handshake's milliseconds, so that even a
    // short run cut before its first flush has a tick rate.
    const raw::CalibRecord calib = Calibration();
    s.last_calibration = calib.ticks;
    AppendRecord(s, &calib, sizeof calib);
  }
  InstallSignalHandlers();
  std::atexit(OnExit);
  if (s.options.sample_hz > 0 && (s.trace || online)) {
    // The sampler runs in a signal handler on the main thread, only while it
    // is outside MPI (so not inside this file's buffer code); with several
    // threads, another may hold the lock: then the sample is dropped. The
    // online path takes each sample too (its functions).
    g_online_samples = online;
    StartSampler(s.options.sample_hz, s.options.sample_depth, [](const void* record, size_t size) {
      if (g_online_samples) online::OnSample(record, size);
      State& st = S();
      if (!st.trace) return true;
      if (st.threaded && !st.lock.try_lock()) return false;
      AppendRecord(st, record, size);
      if (st.threaded) st.lock.unlock();
      return true;
    });
  }
  // The call ends, for the application, when the wrapper returns: after
  // the handshake and the rest of this start-up, the sampler's included
  // (it can take half a millisecond on a loaded machine). That start-up is
  // the collector's, not MPI's: the record's overhead. No sample lands
  // before this record: the wrapper's Call keeps the sampler out.
  const int64_t end = Now();
  if (s.trace) AppendPlainEvent(s, init_fn, site, init_t0, end, end - init_t1);
  if (online) {
    online::Begin(end);
    online::g_on = true;
  }
  g_recording = true;  // only now may other calls record: MPI_Init is seq 0
}

void StopRecording(const void* site, int64_t t0) {
  State& s = S();
  if (!s.started) return;
  std::vector<char> answer;
  if (online::g_on) {
    online::g_on = false;
    answer = online::Finish(reinterpret_cast<uint64_t>(site), t0);  // collective
  }
  if (s.fd >= 0) {
    StopSampler();
    g_recording = false;
  }
  // Collective, as at MPI_Init: on every rank, recording or not.
  const std::optional<ClockOffset> measured = MeasureClockOffset(s.clock_groups, s.options.clock_exchanges);
  if (s.fd < 0) {
    if (!answer.empty()) {
      std::fprintf(stderr, "librpcollect: rank 0 has no file to write the online critical path to\n");
    }
    return;
  }
  Locked lock(s);
  AppendClock(s, 1, measured);
  AppendMaps(s);
  if (!answer.empty()) AppendRecord(s, answer.data(), answer.size());
}

void FinishRecording(uint16_t fn, const void* site, int64_t t0, int64_t mpi_t0, int64_t t1) {
  State& s = S();
  if (s.fd < 0 || s.finished) return;
  Locked lock(s);
  // The last write but one (all but this call's record and the end) is
  // inside the call too; the very last is not measured.
  FlushLocked(s);
  const int64_t end = Now();
  if (s.trace) AppendPlainEvent(s, fn, site, t0, end, (mpi_t0 - t0) + (end - t1));
  AppendEnd(s, 1);
  FlushLocked(s);
  ::close(s.fd);
  s.fd = -1;
  s.finished = true;
}

void Flush() {
  State& s = S();
  Locked lock(s);
  FlushLocked(s);
}

}  // namespace rp::collector
