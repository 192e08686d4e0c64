#include "lib/repr/path_profile.h"

#include <algorithm>
#include <string>

namespace rp::repr {

void OwnerCosts::Add(const profile::Share* begin, const profile::Share* end, const profile::ContextTree& tree) {
  for (const profile::Share* s = begin; s != end; ++s) costs_.emplace_back(tree.node(s->node).owner, s->ns);
}

void OwnerCosts::Normalize() {
  std::sort(costs_.begin(), costs_.end());
  size_t n = 0;
  for (size_t i = 0; i < costs_.size(); ++i) {
    if (n > 0 && costs_[n - 1].first == costs_[i].first) {
      costs_[n - 1].second += costs_[i].second;
    } else {
      costs_[n++] = costs_[i];
    }
  }
  costs_.resize(n);
}

void PathProfiles::AddPath(int64_t cluster, int j, const OwnerCosts& code, int64_t cost) {
  Scope& scope = clusters_[cluster];
  if (scope.path_cost.empty()) scope.path_cost.assign(k_, 0);
  scope.path_cost[j] += cost;
  for (const auto& [owner, ns] : code.costs()) {
    std::vector<int64_t>& costs = scope.by_owner[owner];
    if (costs.empty()) costs.assign(k_, 0);
    costs[j] += ns;
  }
}

Status PathProfiles::Write(const profile::ContextTree& tree, const std::vector<std::pair<int, int>>& pairs,
                           const std::vector<double>& percentiles, bool with_profiles, trace::Writer& out) const {
  // Clusters in order, then the run (kRun sorts first).
  for (const auto& [cluster, scope] : clusters_) {
    if (cluster == kRun) continue;
    RP_RETURN_IF_ERROR(WriteScope(cluster, scope, tree, pairs, percentiles, with_profiles, out));
  }
  const auto run = clusters_.find(kRun);
  if (run == clusters_.end()) return OkStatus();
  return WriteScope(kRun, run->second, tree, pairs, percentiles, with_profiles, out);
}

Status PathProfiles::WriteScope(int64_t cluster, const Scope& scope, const profile::ContextTree& tree,
                                const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& percentiles,
                                bool with_profiles, trace::Writer& out) const {
  // By function, and by function in its calling context (the owner's
  // caller): the paper's tree, one row per node with costs.
  // Contexts are keyed by their caller's call path (the trace's site ids)
  // and the function's name, never by the tree's node ids: their order
  // then follows the program, not the order samples came in (nor which
  // process interned them).
  std::map<std::string, std::vector<int64_t>> functions;
  struct Context {
    std::vector<std::string> path;
    std::vector<int64_t> costs;
  };
  std::map<std::pair<std::vector<int64_t>, std::string>, Context> contexts;
  for (const auto& [owner, costs] : scope.by_owner) {
    const profile::ContextTree::Node& n = tree.node(owner);
    const std::string& fn = tree.functions()[n.function];
    Context& context = contexts[{tree.Path(n.parent), fn}];
    if (context.path.empty()) context.path = tree.FunctionPath(n.parent, n.function);
    for (std::vector<int64_t>* row : {&functions[fn], &context.costs}) {
      if (row->empty()) row->assign(k_, 0);
      for (int j = 0; j < k_; ++j) (*row)[j] += costs[j];
    }
  }
  // Costliest on the most costly path first; ties by name.
  auto order = [](const auto& rows, auto costs) {
    std::vector<typename std::decay_t<decltype(rows)>::const_iterator> out;
    for (auto it = rows.begin(); it != rows.end(); ++it) out.push_back(it);
    std::stable_sort(out.begin(), out.end(), [&](auto a, auto b) { return costs(a)[0] > costs(b)[0]; });
    return out;
  };
  for (auto it : order(functions, [](auto it) -> const std::vector<int64_t>& { return it->second; })) {
    if (!with_profiles) break;
    trace::PathProfileRecord r;
    if (cluster != kRun) r.set_cluster(cluster);
    r.set_scope("function");
    r.set_fn(it->first);
    r.set_costs(it->second);
    RP_RETURN_IF_ERROR(out.Write(r));
  }
  for (auto it : order(contexts, [](auto it) -> const std::vector<int64_t>& { return it->second.costs; })) {
    if (!with_profiles || !contexts_) break;
    trace::PathProfileRecord r;
    if (cluster != kRun) r.set_cluster(cluster);
    r.set_scope("context");
    r.set_fn(it->first.second);
    r.set_path(it->second.path);
    r.set_costs(it->second.costs);
    RP_RETURN_IF_ERROR(out.Write(r));
  }
  // Differences (Figure 2): what slot a spent more than slot b, by
  // function, as a share of slot a's whole cost (the critical path's, for
  // the 100% slot).
  for (const auto& [a, b] : pairs) {
    if (a >= k_ || b >= k_) continue;
    const int64_t whole = scope.path_cost[a];
    std::vector<std::pair<int64_t, std::string>> diffs;
    for (const auto& [fn, costs] : functions) diffs.emplace_back(costs[a] - costs[b], fn);
    std::stable_sort(diffs.begin(), diffs.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    trace::PathDiffRecord total;
    if (cluster != kRun) total.set_cluster(cluster);
    total.set_a(percentiles[a]);
    total.set_b(percentiles[b]);
    total.set_diff(scope.path_cost[a] - scope.path_cost[b]);
    if (whole > 0) total.set_share(static_cast<double>(total.diff) / static_cast<double>(whole));
    RP_RETURN_IF_ERROR(out.Write(total));
    for (const auto& [diff, fn] : diffs) {
      trace::PathDiffRecord r;
      if (cluster != kRun) r.set_cluster(cluster);
      r.set_a(percentiles[a]);
      r.set_b(percentiles[b]);
      r.set_fn(fn);
      r.set_diff(diff);
      if (whole > 0) r.set_share(static_cast<double>(diff) / static_cast<double>(whole));
      RP_RETURN_IF_ERROR(out.Write(r));
    }
  }
  return OkStatus();
}

}  // namespace rp::repr
