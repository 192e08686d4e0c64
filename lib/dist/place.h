// A line's place in a split trace's order (trace::Reader::OrderKey:
// phase, time, rank), with the process holding it. The greatest place over
// the processes names the holder of the last line, who writes what
// follows it (a stage's records after a window, or after the last line of
// all), where the split reader puts them back.
//
//   dist::Placer placer;
//   RP_ASSIGN_OR_RETURN(dist::Place mine, placer.Of(w.text(line), comm.rank()));
//   RP_ASSIGN_OR_RETURN(dist::Latest all, dist::AllreduceValue(comm, dist::Latest{mine}));
#ifndef RP_LIB_DIST_PLACE_H_
#define RP_LIB_DIST_PLACE_H_

#include <compare>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "lib/base/status.h"
#include "lib/trace/codec.h"

namespace rp::dist {

struct Place {
  int64_t phase = INT64_MIN, time = INT64_MIN, rank = INT64_MIN, process = -1;
  auto operator<=>(const Place&) const = default;
};

// The greatest of places over the processes (dist::AllreduceValue).
struct Latest {
  Place place;
  void Add(const Latest& o) { place = std::max(place, o.place); }
};
static_assert(std::is_trivially_copyable_v<Latest>);

class Placer {
 public:
  // The place of a record's line (one with a rank) held by `process`.
  Expected<Place> Of(std::string_view line, int process);

 private:
  trace::LineDecoder decoder_;
  trace::Record record_;
};

}  // namespace rp::dist

#endif  // RP_LIB_DIST_PLACE_H_
