// Path profiles (representative paths paper §6): for each kept path slot
// (the 100% path, the 75% path, ...), the cost of its tasks by calling
// context, one tree for all k paths with k costs per node — summed over the
// phases of a cluster, and the whole run's paths on their own, so that its
// size follows the program's code, not run length or ranks. Tasks are split over code by
// lib/profile's attribution; differences between two slots (§3, Figure 2)
// name the code that makes one path costlier than another.
#ifndef RP_LIB_REPR_PATH_PROFILE_H_
#define RP_LIB_REPR_PATH_PROFILE_H_

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/profile/attribution.h"
#include "lib/trace/writer.h"

namespace rp::repr {

// What (part of) a path spent where: costs by owner node of the context
// tree (a function in its calling context), which is all a profile needs
// of a task's shares. Add any number, then Normalize: sorted by owner,
// one entry each, so its size follows the code, not the tasks.
class OwnerCosts {
 public:
  void Add(const profile::Share* begin, const profile::Share* end, const profile::ContextTree& tree);
  void Add(const OwnerCosts& other) { costs_.insert(costs_.end(), other.costs_.begin(), other.costs_.end()); }
  void Add(int32_t owner, int64_t ns) { costs_.emplace_back(owner, ns); }
  void Normalize();
  const std::vector<std::pair<int32_t, int64_t>>& costs() const { return costs_; }

 private:
  std::vector<std::pair<int32_t, int64_t>> costs_;
};

class PathProfiles {
 public:
  static constexpr int64_t kRun = -1;  // the whole run, not a cluster

  // `contexts`: path_profile rows by calling context too (the profile's
  // owners have callers: offline, from sample stacks).
  explicit PathProfiles(int k, bool contexts = true) : k_(k), contexts_(contexts) {}

  // Slot j of a phase of `cluster` (or of the whole run: kRun) spent
  // `code` (normalized) over a cost of `cost`.
  void AddPath(int64_t cluster, int j, const OwnerCosts& code, int64_t cost);

  // path_profile records (by function, then by function in its calling
  // context) and path_diff records for the pairs of slots, per cluster and
  // for the run. `percentiles`: each slot's nominal percentile.
  // path_profile records only `with_profiles`; path_diff records always.
  Status Write(const profile::ContextTree& tree, const std::vector<std::pair<int, int>>& pairs,
               const std::vector<double>& percentiles, bool with_profiles, trace::Writer& out) const;

 private:
  struct Scope {
    std::map<int32_t, std::vector<int64_t>> by_owner;  // owner node -> k costs
    std::vector<int64_t> path_cost;
  };
  Status WriteScope(int64_t cluster, const Scope& scope, const profile::ContextTree& tree,
                    const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& percentiles,
                    bool with_profiles, trace::Writer& out) const;

  int k_;
  bool contexts_;
  std::map<int64_t, Scope> clusters_;  // kRun first
};

}  // namespace rp::repr

#endif  // RP_LIB_REPR_PATH_PROFILE_H_
