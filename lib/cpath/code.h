// The critical path's computation named by code: each computation on the
// path, and every computation of every rank, split over calling contexts
// by lib/profile, added up by context-tree node; and each sampled
// function's share of the window's computations, for its what-if
// (critical path zeroing per procedure, online CP paper §3).
#ifndef RP_LIB_CPATH_CODE_H_
#define RP_LIB_CPATH_CODE_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/graph/path.h"
#include "lib/profile/attribution.h"
#include "lib/window/window.h"

namespace rp::cpath {

// A code profile by name, all the records show of it: a CodeProfile's
// (CodeProfile::Named), or several processes' added up (a distributed
// analysis: Add, Pack, Unpack). Keys are names and the trace's site ids,
// the same on every process, never a calling context tree's node ids.
struct NamedCode {
  struct Costs {
    int64_t on_path = 0, all = 0;  // ns of computation on the critical path, of all ranks
  };
  bool sampled = false;  // any samples: by function from samples, and by calling context
  profile::Counts counts;
  int64_t undefined_frames = 0;
  int64_t cp_by_method[profile::kMethods] = {};  // the path's computation by profile::Method
  // Computation by the frame it is charged to: (function, file, line).
  std::map<std::tuple<std::string, std::string, int64_t>, Costs> lines;
  // And by calling context: the function and its caller's call path (site
  // ids, innermost first), with that path's function names (outermost
  // first, the function last).
  struct Context {
    std::vector<std::string> names;
    Costs costs;
  };
  std::map<std::pair<std::string, std::vector<int64_t>>, Context> contexts;

  // What the samples could not tell, for stderr; none when all was well.
  std::vector<std::string> Warnings() const;
  void Add(const NamedCode& other);
  void Pack(dist::Packer* out) const;
  static Expected<NamedCode> Unpack(dist::Unpacker* in);
};

class CodeProfile {
 public:
  explicit CodeProfile(const window::Dictionary& dict);

  // Splits the window's computations and adds them to the all-ranks
  // column; with `zeroing`, cuts() are then this window's, by function
  // (once the trace has samples, or its rank records say it will).
  Status AddWindow(const window::Window& w, int64_t run_start, bool zeroing);
  // A window split between processes: its ranks over all (Attribution::SeeRanks).
  void SeeRanks(int64_t ranks) { attribution_.SeeRanks(ranks); }
  const std::vector<graph::ProcedureCuts>& cuts() const { return cuts_; }
  // A segment of the critical path (computation ones count).
  void AddSegment(const graph::Segment& s);
  // The path is decided up to t: computations ending before it are done.
  void DecidedUntil(int64_t t) { attribution_.ForgetBefore(t); }
  void Finish() { attribution_.Finish(); }
  const profile::ContextTree& tree() const { return attribution_.tree(); }
  profile::ContextTree& tree() { return attribution_.tree(); }
  const profile::Counts& counts() const { return attribution_.counts(); }
  bool sampled() const { return attribution_.any_samples(); }
  // fn(owner, on_path, all) for every node with computation: the node its
  // time is charged to (the innermost application frame), ns on the path
  // and over all ranks.
  template <typename F>
  void ForEachCharged(F&& fn) const {
    const profile::ContextTree& t = tree();
    for (size_t n = 0; n < std::max(cp_.size(), time_.size()); ++n) {
      const int64_t on_path = n < cp_.size() ? cp_[n] : 0, all = n < time_.size() ? time_[n] : 0;
      if (on_path != 0 || all != 0) fn(t.node(t.node(static_cast<int32_t>(n)).owner), on_path, all);
    }
  }
  // The path's computation by profile::Method.
  const int64_t* cp_by_method() const { return cp_by_method_; }
  // All of it by name (after Finish).
  NamedCode Named() const;

 private:
  static void Add(std::vector<int64_t>& v, int32_t node, int64_t ns) {
    if (static_cast<size_t>(node) >= v.size()) v.resize(node + 1);
    v[node] += ns;
  }

  profile::Attribution attribution_;
  bool samples_expected_ = false;
  std::vector<int64_t> cp_, time_;  // by context-tree node: on the path, all ranks
  int64_t cp_by_method_[profile::kMethods] = {};
  std::vector<graph::ProcedureCuts> cuts_;
  std::vector<int32_t> cut_of_function_;  // index in cuts_, -1
};

}  // namespace rp::cpath

#endif  // RP_LIB_CPATH_CODE_H_
