// The collector's runtime: what the generated MPI wrappers (gen_wrappers.py)
// call. One instance per process (MPI rank). It timestamps calls, turns
// communicator ranks into world ranks, gives requests, communicators,
// windows and files small ids, and appends packed binary records
// (raw_format.h) to a buffer written to the rank's file by size.
//
// A generated wrapper looks like:
//   int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
//     rp::collector::Call call(kFnMPI_Send, __builtin_return_address(0));
//     if (!call.recording()) return PMPI_Send(buf, count, type, dest, tag, comm);
//     call.Start();
//     int rc = PMPI_Send(buf, count, type, dest, tag, comm);
//     call.Stop();
//     call.Peer(comm, dest); call.Tag(tag); call.Bytes(Bytes(count, type));
//     call.Commit();
//     return rc;
//   }
// Calls made while another wrapper runs on the same thread (MPI calling MPI,
// the collector's own PMPI calls) are not recorded.
#ifndef RP_COLLECTOR_RUNTIME_H_
#define RP_COLLECTOR_RUNTIME_H_

#include <mpi.h>

#include <cstdint>

#include "collector/raw_format.h"

namespace rp::collector {

// CLOCK_MONOTONIC in nanoseconds.
int64_t MonotonicNs();

// Nesting depth of wrappers on this thread; > 0 means "inside MPI".
extern thread_local int t_depth;
// True between the end of MPI_Init and the start of MPI_Finalize.
extern bool g_recording;

// Event time: TSC ticks when the CPU has an invariant TSC (a few ns to
// read), else CLOCK_MONOTONIC nanoseconds; the merge turns ticks into ns.
extern bool g_ticks;
inline int64_t Now() {
#if defined(__x86_64__)
  if (g_ticks) return static_cast<int64_t>(__builtin_ia32_rdtsc());
#endif
  return MonotonicNs();
}

// Bytes of `count` elements of `type` (0 for MPI_DATATYPE_NULL).
int64_t Bytes(int64_t count, MPI_Datatype type);
// Sum of counts[0..n) elements of `type`, or of types[i] when types given.
int64_t SumBytes(const int* counts, int n, MPI_Datatype type, const MPI_Datatype* types = nullptr);
// Number of ranks addressed by a collective's per-rank arrays: the group
// size, the remote group size for inter-communicators, and the in/out
// degrees for neighbourhood collectives.
int PeerCount(MPI_Comm comm, bool neighbourhood, bool incoming);
// True for MPI_IN_PLACE in C and its Fortran counterpart.
bool IsInPlace(const void* buffer);
// Bytes a status says were received (MPI_Get_count in MPI_BYTE).
int64_t StatusBytes(const MPI_Status* status);
int CommRank(MPI_Comm comm);
// Whether this rank is the root of a rooted collective (MPI_ROOT on the
// root side of an inter-communicator).
bool IsRoot(MPI_Comm comm, int root);

enum class ReqKind : uint8_t { kSend, kRecv, kColl, kRma, kIo, kOther };

// One MPI call being recorded; lives on the wrapper's stack.
class Call {
 public:
  Call(uint16_t fn, const void* site) : fn_(fn), site_(reinterpret_cast<uint64_t>(site)) {
    recording_ = g_recording && t_depth == 0;
    ++t_depth;
  }
  ~Call() { --t_depth; }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  bool recording() const { return recording_; }
  void Start();
  void Stop() { t1_ = Now(); }

  void Comm(MPI_Comm comm);
  // Partner rank `rank` of `comm` as a world rank (wildcards kept).
  void Peer(MPI_Comm comm, int rank);
  void Rpeer(MPI_Comm comm, int rank);
  // A partner already known as a world rank (windows, matched messages).
  void PeerWorld(int32_t world_rank) { Set(raw::kPeer32, world_rank); }
  void Root(MPI_Comm comm, int root);
  void Tag(int tag) { Set(raw::kTag32, tag); }
  void Rtag(int tag) { Set(raw::kRtag32, tag); }
  void Bytes(int64_t bytes) { Set(raw::kBytes64, bytes); }
  void Rbytes(int64_t bytes) { Set(raw::kRbytes64, bytes); }
  void Op(MPI_Op op);
  void Req(int32_t id) { Set(raw::kReq32, id); }
  void Msg(int32_t id) { Set(raw::kMsg32, id); }
  void Newcomm(int32_t id) { Set(raw::kNewcomm32, id); }
  void Win(MPI_Win win);
  void Fh(MPI_File fh);
  void Offset(int64_t offset) { Set(raw::kOffset64, offset); }
  // Ids of requests this call completed or started.
  void Completed(int32_t id);
  void Resolved(int32_t id, int peer, int tag, int64_t bytes);
  void Started(int32_t id);

  // Appends the record to the rank's buffer.
  void Commit();

  // The call's record gives sizes and they are 0 (window::Event's
  // MovedNothingAnywhere reads the same from the record).
  bool moved_nothing() const {
    constexpr uint16_t kSizes = (1u << raw::kBytes64) | (1u << raw::kRbytes64);
    return (present_ & kSizes) != 0 && ((present_ & (1u << raw::kBytes64)) == 0 || fields_[raw::kBytes64] == 0) &&
           ((present_ & (1u << raw::kRbytes64)) == 0 || fields_[raw::kRbytes64] == 0);
  }

  // Peer and tag of the partner, for requests and probes created by this call.
  int32_t peer() const { return fields_[raw::kPeer32]; }

 private:
  friend class Recorder;
  void Set(raw::EventField field, int64_t value) {
    present_ |= static_cast<uint16_t>(1u << field);
    fields_[field] = value;
  }

  uint16_t fn_;
  bool recording_;
  uint64_t site_;
  int64_t t0_ = 0, t1_ = 0;
  uint16_t present_ = 0;
  int64_t fields_[raw::kFieldCount];
};

// --- requests ----------------------------------------------------------------
// Ids are small integers, unique among a rank's live requests and reused
// once a request is freed.
int32_t NewRequest(MPI_Request handle, ReqKind kind, int32_t peer, int tag, int64_t bytes,
                   MPI_Comm comm, bool persistent);
// The id of a live request, or -1 (MPI_REQUEST_NULL, or one we did not see).
int32_t RequestId(MPI_Request handle);
// Ids for an array of handles. An MPI library may give several requests the
// same handle (Open MPI does for every MPI_PROC_NULL operation): repeated
// handles get their distinct ids, oldest first.
void RequestIds(const MPI_Request* handles, int n, int32_t* ids);
// Records the completion of the request `id` (looked up before the call that
// completed it) with its status, and forgets it unless persistent. An
// inactive persistent request (never started, or already completed) does
// not complete.
void CompleteRequest(Call& call, MPI_Request old_handle, int32_t id, const MPI_Status* status);
// Forgets a request (MPI_Request_free); persistent ones included.
void FreeRequest(MPI_Request handle);
// Marks a persistent request started (MPI_Start): returns its id.
int32_t StartRequest(MPI_Request handle);

// --- matched messages (MPI_Mprobe/MPI_Improbe) -------------------------------
int32_t NewMessage(MPI_Message handle, const MPI_Status* status, MPI_Comm comm);
// Forgets the message, returning its id (or -1) and its source and tag.
int32_t TakeMessage(MPI_Message handle, int* peer, int* tag, int64_t* bytes);

// --- communicators, windows, files -------------------------------------------
// Registers a communicator created by the wrapped call; returns its id.
int32_t RegisterComm(MPI_Comm comm, MPI_Comm parent, raw::CommKind kind);
void ForgetComm(MPI_Comm comm);
int32_t RegisterWin(MPI_Win win, MPI_Comm comm);
void ForgetWin(MPI_Win win);
int32_t RegisterFile(MPI_File fh);
void ForgetFile(MPI_File fh);
// World rank of `rank` in the group of `win`.
int WinWorldRank(MPI_Win win, int rank);

// --- life cycle --------------------------------------------------------------
// After PMPI_Init: opens the rank's file, measures the clock offset, starts
// sampling, and records the MPI_Init call from `init_t0` to its own end;
// the time after `init_t1`, when PMPI_Init returned, is the collector's own
// work (the record's overhead).
void StartRecording(uint16_t init_fn, const void* site, int64_t init_t0, int64_t init_t1,
                    int thread_level);
// Before PMPI_Finalize, which the application called at `t0` from `site`:
// ends the online critical path (collective), measures the clock offset
// again (collective: also on a rank that could not record), stops sampling.
void StopRecording(const void* site, int64_t t0);
// After PMPI_Finalize: writes the finalize event and closes the file. The
// application called at t0, PMPI_Finalize ran from mpi_t0 to t1; the rest
// (the closing handshake before, the buffer's last write after) is the
// collector's own work.
void FinishRecording(uint16_t fn, const void* site, int64_t t0, int64_t mpi_t0, int64_t t1);
// Flushes what is buffered (MPI_Abort, fatal signals, exit without Finalize).
void Flush();

}  // namespace rp::collector

#endif  // RP_COLLECTOR_RUNTIME_H_
