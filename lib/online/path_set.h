// A rank's Path-set as the representative paths algorithm keeps it during
// the run (representative-paths paper §4, Figure 3; §5, Figure 4(c)): k
// paths that represent every path that has reached the rank so far, each
// its cost (the computation on it: rp-repr's --cost compute) and its path
// summary, consecutive tasks on one rank as one interval (lib/repr's
// Push). The set travels with each message (after the critical path in the
// piggyback); a join keeps k of the union of the sets meeting there by
// lib/repr's Choose — the same selection rp-repr makes over the trace.
//
// The summary is bounded so that the piggyback stays under the eager
// limit: once a path has `intervals` intervals, its last one becomes the
// rest of the path (rank kRest), its cost and tasks still exact (the
// paper's overflow flag, §5, with what the overflow holds kept).
//
//   SetConfig c{.k = 5, .intervals = 10};
//   PathSet s(c);                         // one path, starting here
//   s.AddTask(rank, call, t0, t1);        // computation before each call
//   s.Encode(buf); ... PathSet::Decode(buf, c, &theirs);
//   s.Join({&theirs, 1});                 // at a receive's completion
#ifndef RP_LIB_ONLINE_PATH_SET_H_
#define RP_LIB_ONLINE_PATH_SET_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "lib/repr/path_summary.h"
#include "lib/repr/select.h"

namespace rp::online {

struct SetConfig {
  int k = 5;
  int intervals = 10;  // per path
  repr::Select select = repr::Select::kRepr;
  int functions = 0;   // per path: its heaviest sampled functions (its profile)
};

// A part of a task's computation in one sampled function (FunctionKeys'
// key).
struct FunctionCost {
  uint64_t function = 0;
  int64_t ns = 0;
};

struct SetPath {
  static constexpr int32_t kRest = -1;  // an interval holding the rest of an overflowing path
  int64_t cost = 0;
  std::vector<repr::Interval> summary;
  // The path's profile (§6): its cost by sampled function, the
  // config.functions heaviest (the rest of `cost` in functions not kept).
  std::vector<FunctionCost> code;
  bool overflow() const { return !summary.empty() && summary.back().rank == kRest; }
};

class PathSet {
 public:
  explicit PathSet(const SetConfig& config) : config_(config), paths_(1) {}
  PathSet() : PathSet(SetConfig{}) {}

  const SetConfig& config() const { return config_; }
  // Most costly first.
  const std::vector<SetPath>& paths() const { return paths_; }

  // A task: the computation [t0, t1] on `rank` before its call number
  // `call`, extending every path; `code`: how the samples split it.
  void AddTask(int32_t rank, int64_t call, int64_t t0, int64_t t1, std::span<const FunctionCost> code = {});
  // Every path's function keys mapped (to rank 0's addresses, for the
  // raw record).
  template <typename F>
  void MapFunctions(F&& map) {
    for (SetPath& p : paths_) {
      for (FunctionCost& f : p.code) f.function = map(f.function);
    }
  }

  // Keeps k of the union of this set and `others` (a join: a receive's
  // completion, a collective). A path met twice (the same cost and
  // summary: copies that an all-to-all collective left on every rank)
  // counts once. *positions/*total (optional): each kept path's place
  // among the distinct candidates, and their number.
  void Join(std::span<const PathSet* const> others, std::vector<int>* positions = nullptr, int* total = nullptr);

  // Wire record: 8 bytes, then per path 16, 40 an interval and 16 a
  // function. MaxBytes bounds it for a config; Encode returns the bytes
  // written (0: `out` too short); Decode false on a malformed record or one
  // over the config's bounds.
  static size_t MaxBytes(const SetConfig& config) {
    return kHeaderBytes + config.k * (kPathBytes + kIntervalBytes * static_cast<size_t>(config.intervals) +
                                      kFunctionBytes * static_cast<size_t>(config.functions));
  }
  size_t WireBytes() const;
  size_t Encode(std::span<uint8_t> out) const;
  static bool Decode(std::span<const uint8_t> in, const SetConfig& config, PathSet* set);

  static constexpr size_t kHeaderBytes = 8, kPathBytes = 16, kIntervalBytes = 40, kFunctionBytes = 16;

 private:
  SetConfig config_;
  std::vector<SetPath> paths_;
  std::vector<SetPath> scratch_;
  std::vector<const SetPath*> candidates_;
  std::vector<int> chosen_;
};

// Joins two wire records of `config` into `inout` (the MPI user operation
// of the collectives that pass sets). Both are MaxBytes(config) long.
void JoinWire(const SetConfig& config, const uint8_t* in, uint8_t* inout);

// How many intervals a path may hold when k paths, each with `functions`
// functions, share `bytes`.
int IntervalsFor(size_t bytes, int k, int functions = 0);
// The functions a path's profile keeps when k paths share `bytes`: up to
// 4, as long as each path keeps 2 intervals more than that many
// functions' room would leave it.
int ProfileFunctionsFor(size_t bytes, int k);

}  // namespace rp::online

#endif  // RP_LIB_ONLINE_PATH_SET_H_
