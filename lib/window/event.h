// The analyses' view of one mpi record: plain integers, no strings, ~100
// bytes, with the MPI semantics of its function looked up once (the MPI
// function table, lib/mpi/functions.txt). Arrays
// (completed ids, resolved statuses, started ids) live in the window's
// shared vectors and are referenced by offset.
#ifndef RP_LIB_WINDOW_EVENT_H_
#define RP_LIB_WINDOW_EVENT_H_

#include <cstdint>

#include "lib/mpi/functions.h"
#include "lib/trace/schema.h"

namespace rp::window {

inline constexpr int32_t kNone = INT32_MIN;  // field absent
// Site ids below this may index tables directly; ids written by other
// tools may be anything, and larger ones go to maps.
inline constexpr int32_t kDenseSites = 1 << 20;
inline constexpr int64_t kNoId = INT64_MIN;  // req or msg absent
// Event::line of a ghost: in a distributed analysis, another process's
// event put into this process's window because one of its events depends
// on it (lib/match/distributed.h). It has no line and no arrays.
inline constexpr uint32_t kGhostLine = UINT32_MAX;

struct Event {
  // Every field absent (kNone, kNoId), times, counts and sizes 0.
  Event()
      : t0(0), t1(0), seq(0), bytes(0), rbytes(0), rp(0), rank(0), fn(-1), site(kNone), comm(kNone), peer(kNone),
        tag(kNone), rpeer(kNone), rtag(kNone), root(kNone), sized(false), req(kNoId), msg(kNoId), phase(kNone),
        completed_begin(0), completed_count(0), resolved_begin(0), resolved_count(0), started_begin(0),
        started_count(0), line(0) {}
  // Nothing stored, for a reader that sets every field itself (the stores
  // of the defaults are not removed as dead across its calls).
  enum Unset { kUnset };
  explicit Event(Unset) {}

  int64_t t0, t1;
  int64_t seq;
  int64_t bytes, rbytes;
  int64_t rp;  // ns of [t0, t1] that were the collector's own work (0..t1 - t0)
  int32_t rank;
  int32_t fn;  // index into mpi::kFunctions; -1 for a function it does not know
  int32_t site;
  int32_t comm;
  int32_t peer, tag;
  int32_t rpeer, rtag;
  int32_t root;
  // The record gave bytes or rbytes: sizes of 0 then say that the call
  // moved nothing (absent sizes are unknown, not 0).
  bool sized;
  int64_t req;  // request and message handles are any int64 a producer chose
  int64_t msg;
  int32_t phase;
  uint32_t completed_begin, completed_count;  // Window::ids
  uint32_t resolved_begin, resolved_count;    // Window::resolved
  uint32_t started_begin, started_count;      // Window::ids
  uint32_t line;  // index of its line in the window (Window::lines)

  bool ghost() const { return line == kGhostLine; }
  const mpi::Function* function() const { return fn >= 0 ? &mpi::kFunctions[fn] : nullptr; }
  mpi::Category category() const { return fn >= 0 ? mpi::kFunctions[fn].category : mpi::Category::kPcontrol; }
  mpi::Collective collective() const {
    return fn >= 0 ? mpi::kFunctions[fn].collective : mpi::Collective::kNone;
  }
  // A collective whose counts every member passes alike (mpi::CountsAlike)
  // and whose record says this member moved nothing: no member moved
  // anything, and MPI need not make the call wait for the others. Not a
  // synchronization (match::Collective::kind, window::IsGlobalSync).
  bool MovedNothingAnywhere() const { return sized && bytes == 0 && rbytes == 0 && mpi::CountsAlike(fn); }
  // MPI_Init, MPI_Init_thread or MPI_Finalize: they bound the application's
  // time and are outside it.
  bool bounds_application() const {
    return fn >= 0 && (mpi::kFunctions[fn].category == mpi::Category::kInit ||
                       mpi::kFunctions[fn].category == mpi::Category::kFinalize);
  }
};
// sized lies in the padding before req: events stay 136 bytes.
static_assert(sizeof(Event) == 136);

}  // namespace rp::window

#endif  // RP_LIB_WINDOW_EVENT_H_
