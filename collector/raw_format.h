// The collector's per-rank binary files, written by librpcollect.so and read
// by rp-record's merge (lib/record). One file per rank, "rank-<R>.rpraw":
// a FileHeader, then records, each starting with a RecordHeader and padded
// to 8 bytes. Files are written by whole buffers, so a rank that dies leaves
// every buffer it flushed readable; a torn last record is detected by its
// size and dropped by the merge.
//
// Events are packed: a fixed part (function, start, duration, call site) and
// then only the optional fields whose bit is set in `present`, in bit order,
// followed by the arrays. A typical point-to-point event takes 48-56 bytes.
#ifndef RP_COLLECTOR_RAW_FORMAT_H_
#define RP_COLLECTOR_RAW_FORMAT_H_

#include <cstdint>

namespace rp::raw {

inline constexpr char kMagic[8] = {'R', 'P', 'R', 'A', 'W', '0', '0', '1'};
inline constexpr uint32_t kVersion = 3;

struct FileHeader {
  char magic[8];
  uint32_t version;
  int32_t rank;
  int32_t world_size;
  int32_t pid;
  int32_t thread_level;   // MPI_THREAD_* provided
  int32_t sample_hz;      // 0: sampling off
  int64_t clock_id;       // clockid_t of the nanosecond clock (CLOCK_MONOTONIC)
  int32_t timer;          // kTimerNs: event times are ns; kTimerTicks: TSC ticks
  int32_t pad;
  char host[64];
  char boot_id[40];       // /proc/sys/kernel/random/boot_id ("" when unknown)
};
static_assert(sizeof(FileHeader) == 152);

// Event and sample times are either nanoseconds of clock_id, or CPU
// time-stamp counter ticks converted by the merge through the CalibRecords
// (pairs of ticks and nanoseconds) written at start-up and with every
// flushed buffer.
enum Timer : int32_t { kTimerNs = 0, kTimerTicks = 1 };

enum RecordKind : uint16_t {
  kEvent = 1,
  kSample = 2,
  kComm = 3,
  kClock = 4,
  kMaps = 5,
  kEnd = 6,
  kCmdline = 7,
  kCalib = 8,
  kOverhead = 9,
  kOnline = 10,
};

struct RecordHeader {
  uint16_t kind;
  uint16_t fn;     // events: rp::mpi::FunctionId (lib/mpi/functions.txt row)
  uint32_t size;   // bytes of the whole record, header included, multiple of 8
};

// Optional event fields, in the order they are packed after EventFixed.
enum EventField : uint16_t {
  kComm32 = 0,     // int32 rank-local communicator id (CommRecord.local_id)
  kPeer32,         // int32 world rank, -1 any source, -2 proc null
  kTag32,          // int32
  kBytes64,        // int64
  kRpeer32,        // int32 world rank (Sendrecv source)
  kRtag32,         // int32
  kRbytes64,       // int64
  kRoot32,         // int32 world rank
  kOp32,           // int32 index into kOpNames, -1 user-defined
  kReq32,          // int32 request id
  kMsg32,          // int32 matched-message id
  kNewcomm32,      // int32 rank-local communicator id
  kWin32,          // int32 rank-local window id
  kFh32,           // int32 rank-local file id
  kOffset64,       // int64
  kDuration64,     // int64 t1 - t0 when it does not fit EventFixed.duration
  kFieldCount
};
static_assert(kFieldCount <= 16);

inline constexpr bool Is64(EventField f) {
  return f == kBytes64 || f == kRbytes64 || f == kOffset64 || f == kDuration64;
}

// 36 bytes; the optional fields follow (4-byte aligned), then the arrays.
struct __attribute__((packed)) EventFixed {
  RecordHeader h;       // kind kEvent, fn
  uint16_t present;     // bits of EventField
  uint16_t n_completed; // int32 ids
  uint16_t n_resolved;  // ResolvedEntry
  uint16_t n_reqs;      // int32 ids (Startall)
  int64_t t0;
  uint64_t site;        // return address of the call
  uint32_t duration;    // t1 - t0; UINT32_MAX: see kDuration64
};
static_assert(sizeof(EventFixed) == 36);

struct ResolvedEntry {
  int32_t req;
  int32_t peer;
  int32_t tag;
  int32_t pad;
  int64_t bytes;
};

struct SampleFixed {
  RecordHeader h;       // kind kSample
  uint32_t depth;       // uint64 return addresses follow, innermost first
  uint32_t overrun;     // timer expirations merged into this one (the rank
                        // was not running): the sample stands for 1 + overrun
  int64_t t;
};

enum CommKind : int32_t {
  kWorld = 0, kSelf, kDup, kSplit, kCreate, kCart, kGraph, kDistGraph, kIntercomm,
  kMerge, kSplitType, kCreateGroup, kOtherComm,
};

struct CommFixed {
  RecordHeader h;       // kind kComm
  int32_t local_id;     // 0 world, 1 self, then in creation order
  int32_t parent;       // local id, -1 none
  int32_t kind;         // CommKind
  int32_t size;         // int32 world ranks follow, in comm rank order
  int32_t remote_size;  // then the remote group's world ranks
  int32_t pad;
};

struct ClockRecord {
  RecordHeader h;       // kind kClock
  int32_t when;         // 0 init, 1 finalize
  int32_t pad;
  int64_t t;            // local time of the measurement
  int64_t offset;       // rank 0 time minus local time
  int64_t rtt;          // round trip of the best exchange
};

// kind kMaps: TextFixed then the executable lines of /proc/self/maps.

struct TextFixed {
  RecordHeader h;       // kind kCmdline: /proc/self/cmdline, NUL-separated
  uint32_t length;
  uint32_t pad;
};

struct CalibRecord {
  RecordHeader h;       // kind kCalib
  int64_t ticks;        // time-stamp counter
  int64_t ns;           // clock_id at the same moment
};

// The collector's own work inside the next event's [t0, t1] (set-up in
// MPI_Init, handshake and last write in MPI_Finalize, a buffer write in
// any call), in timer units: the mpi record's rp.
struct OverheadRecord {
  RecordHeader h;       // kind kOverhead
  int64_t time;
};

struct EndRecord {
  RecordHeader h;       // kind kEnd
  int64_t events;
  int64_t samples;
  int64_t samples_in_mpi;  // samples skipped because the rank was inside MPI
  int32_t finalized;       // 1 after MPI_Finalize, 0 at exit without it
  int32_t pad;
  int64_t overhead_outside;  // timer units of the collector's own work outside
                             // MPI calls: taking samples, and the buffer writes
                             // that samples forced
};

// Rank 0's online answer (RP_ONLINE=1), appended before its end record:
// OnlineFixed, the critical path's wire record (lib/online/path.h) whose
// site fields are rank 0's return addresses (function fields: as
// OnlineFunction's), padded to 8 bytes, then OnlineSite entries: every
// call site's time summed over all ranks, then OnlineFunction entries,
// then the contexts (context_words), then the representative paths if
// kept (see set_bytes). Times are ns on rank
// 0's clock.
//
// A rank killed or exiting before MPI_Finalize writes its own path instead
// (h.fn = kOnlinePartial, ranks 0, its own addresses, the path's sites
// with their function but no times, `end` the entry of the call it was
// in): the longest of those is what is left.
constexpr uint16_t kOnlinePartial = 1;

struct OnlineFixed {
  RecordHeader h;          // kind kOnline; fn kOnlinePartial for one rank's path
  int64_t start;           // the first return from MPI_Init
  int64_t end;             // the last entry of MPI_Finalize
  int32_t ranks;           // ranks whose answer is in (all, unless some died)
  int32_t path_bytes;      // the wire record's length
  int32_t n_sites;
  int32_t regions;         // measured regions (MPI_Pcontrol; 1: the whole run)
  // What the model could not follow, summed over the ranks (lib/online's
  // notes: a message whose piggyback was not paired, a communicator without
  // its duplicate, a collective on an inter-communicator).
  int64_t unpaired_receives;  // receives completed without a piggyback
  int64_t unpaired_sends;     // piggybacks left unreceived at MPI_Finalize
  int64_t skipped_calls;      // calls passed over (no duplicate, inter-communicator collectives)
  int64_t piggyback_bytes;    // bytes of piggybacks sent, all ranks
  int64_t piggybacks;         // piggyback messages and path collectives, all ranks
  int64_t measured;           // the regions' spans added up (first start to last stop, each)
  // Representative paths (RP_ONLINE_PATHS): the run's k kept paths, a
  // lib/online PathSet wire record of set_bytes after the sites (padded to
  // 8), then each kept path's place among the set_total distinct final
  // candidates (int32 each, padded to 8). set_bytes 0: none.
  int32_t set_bytes;
  int32_t set_total;
  int32_t set_k;
  int32_t set_topk;
  // Sampled functions (RP_SAMPLE_HZ > 0): n_functions OnlineFunction
  // entries after the sites, before the representative paths; the path's
  // own shares are in its wire record.
  int32_t n_functions;
  int32_t pad;
  int64_t samples;  // samples that named computation, all ranks
  // Sampled calling contexts: context_words uint64 words after the
  // functions, per context: its key (as the path's context shares name
  // it), its computation over all ranks, the chain's length n, then n
  // addresses: the function's first instruction plus one, then the
  // return addresses of its callers, innermost first.
  int64_t context_words;
};

// A sampled function's computation summed over all ranks.
struct OnlineFunction {
  uint64_t address;  // rank 0's address of its first instruction, plus one (named as a return address is)
  int64_t compute;
};

struct OnlineSite {
  uint64_t address;  // rank 0's return address (its module's offset when mapped only elsewhere)
  int64_t compute, mpi, calls;
  int32_t fn;        // the MPI function called there
  int32_t pad;
};

// Predefined reduction operations, in the order kOp32 indexes them.
inline constexpr const char* kOpNames[] = {
    "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR",
    "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP",
};

inline constexpr uint32_t Align8(uint32_t n) { return (n + 7) & ~7u; }

}  // namespace rp::raw

#endif  // RP_COLLECTOR_RAW_FORMAT_H_
