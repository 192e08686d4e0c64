// Where each phase of a tagged stream ends, for stages that read it window
// by window after rp-phases (rp-repr, rp-diagnose). rp-phases cuts phases at
// global synchronizations and writes each phase's record, with its count
// of calls, before its records; a window ends at a clean global
// synchronization, so a phase usually ends with a window, but it can run
// on over several. A phase has ended
//   - in a window, when a later phase has calls in the same window, or
//     when its record's count of calls has been seen;
//   - before a window, when it was still open and the window holds none of
//     its calls (phases tagged by a tool that writes no records).
//
//   PhaseEnds ends;
//   for (each window w) {
//     ends.NoteRecords(w);
//     for (int32_t p : ends.EndedBefore(w)) finish(p);   // from what was carried
//     ... analyse w ...
//     for (int32_t p : ends.EndedIn(w)) finish(p);       // with w's graph
//   }
//   for (int32_t p : ends.Open()) finish(p);
#ifndef RP_LIB_PHASES_PHASE_ENDS_H_
#define RP_LIB_PHASES_PHASE_ENDS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/codec.h"
#include "lib/window/window.h"

namespace rp::phases {

class PhaseEnds {
 public:
  // The phase records among the dictionary's and a window's lines.
  Status NoteRecords(const window::Dictionary& dict);
  Status NoteRecords(const window::Window& w);
  Status NoteRecord(std::string_view line);

  // Open phases with no call in `w`, ascending; they are closed.
  std::vector<int32_t> EndedBefore(const window::Window& w) { return EndedBefore(Calls(w)); }
  // The phases of `w` (not kNone) that ended in it, ascending; the last
  // one of `w` that may run on stays open.
  std::vector<int32_t> EndedIn(const window::Window& w) { return EndedIn(Calls(w)); }
  // The same from a window's calls by phase (kNone included), for a
  // window read by several processes (their calls added up).
  static std::map<int32_t, int64_t> Calls(const window::Window& w);
  std::vector<int32_t> EndedBefore(const std::map<int32_t, int64_t>& calls);
  std::vector<int32_t> EndedIn(const std::map<int32_t, int64_t>& calls);
  // The phases still open (at the end of the stream: they end there).
  std::vector<int32_t> Open() const { return {open_.begin(), open_.end()}; }
  bool any_open() const { return !open_.empty(); }

  // Whether the stream has phases, judged at its first window with calls:
  // phase records seen, or calls tagged with a phase.
  bool Phased(const window::Window& first) const;

  // From the records: -1 when none says.
  int64_t cluster(int32_t phase) const;
  bool any_records() const { return !expected_.empty(); }
  // A phase with calls after it was taken as ended (its record's count
  // was wrong, or phases interleave): its calls are told as a new stretch.
  bool reopened() const { return reopened_; }

 private:
  std::map<int32_t, int64_t> expected_;  // phase id -> its calls (record)
  std::map<int32_t, int64_t> cluster_;   // phase id -> cluster (record)
  std::map<int32_t, int64_t> seen_;      // open phase -> its calls so far
  std::set<int32_t> open_;
  int32_t done_until_ = window::kNone;  // the latest phase ended
  bool reopened_ = false;
  trace::LineDecoder decoder_;
  trace::Record record_;
};

}  // namespace rp::phases

#endif  // RP_LIB_PHASES_PHASE_ENDS_H_
