// The analyses' view of one mpi record: plain integers, no strings, ~100
// bytes, with the MPI semantics of its function looked up once (the
// collector's function table, collector/mpi_functions.txt). Arrays
// (completed ids, resolved statuses, started ids) live in the window's
// shared vectors and are referenced by offset.
#ifndef RP_LIB_WINDOW_EVENT_H_
#define RP_LIB_WINDOW_EVENT_H_

#include <cstdint>
#include <string_view>

#include "collector/mpi_function_ids.h"
#include "lib/trace/schema.h"

namespace rp::window {

inline constexpr int32_t kNone = INT32_MIN;  // field absent
inline constexpr int64_t kNoId = INT64_MIN;  // req or msg absent

struct Event {
  // User-provided, so that value-initialisation (vector::emplace_back())
  // stores the defaults below and nothing more: a defaulted one would have
  // the slot zeroed first (a `rep stos`).
  Event() {}

  int64_t t0 = 0, t1 = 0;
  int64_t seq = 0;
  int64_t bytes = 0, rbytes = 0;
  int32_t rank = 0;
  int32_t fn = -1;  // index into mpi::kFunctions; -1 for a function it does not know
  int32_t site = kNone;
  int32_t comm = kNone;
  int32_t peer = kNone, tag = kNone;
  int32_t rpeer = kNone, rtag = kNone;
  int32_t root = kNone;
  int64_t req = kNoId;  // request and message handles are any int64 a producer chose
  int64_t msg = kNoId;
  int32_t phase = kNone;
  uint32_t completed_begin = 0, completed_count = 0;  // Window::ids
  uint32_t resolved_begin = 0, resolved_count = 0;    // Window::resolved
  uint32_t started_begin = 0, started_count = 0;      // Window::ids
  uint32_t record = 0;  // index of its record in the window

  const mpi::Function* function() const { return fn >= 0 ? &mpi::kFunctions[fn] : nullptr; }
  mpi::Category category() const { return fn >= 0 ? mpi::kFunctions[fn].category : mpi::Category::kPcontrol; }
  mpi::Collective collective() const {
    return fn >= 0 ? mpi::kFunctions[fn].collective : mpi::Collective::kNone;
  }
};

// Index of an MPI function in mpi::kFunctions, -1 if unknown.
int32_t FunctionIndex(std::string_view name);

}  // namespace rp::window

#endif  // RP_LIB_WINDOW_EVENT_H_
