#include "lib/online/scope.h"

#include <algorithm>
#include <map>
#include <utility>

#include "lib/window/event.h"

namespace rp::online {

cpath::Scope ToScope(const Path& path, std::span<const SiteTotal> totals,
                     const std::function<int32_t(uint64_t)>& id, int64_t start, int64_t end) {
  cpath::Scope scope;
  scope.start = start;
  scope.end = end;
  scope.length = path.length();
  scope.by_kind[static_cast<int>(graph::SegmentKind::kCompute)] = path.compute();
  scope.by_kind[static_cast<int>(graph::SegmentKind::kMpi)] = path.mpi();
  scope.last_rank = path.end_rank();
  for (const RankShare& r : path.ranks()) scope.Rank(r.rank).cp += r.ns;
  for (const SiteShare& s : path.sites()) {
    cpath::SiteStats& st = scope.sites[id(s.site)];
    st.cp_compute += s.compute;
    st.cp_mpi += s.mpi;
  }
  if (path.other_compute() != 0 || path.other_mpi() != 0) {
    cpath::SiteStats& st = scope.sites[window::kNone];
    st.cp_compute += path.other_compute();
    st.cp_mpi += path.other_mpi();
  }
  for (const SiteTotal& t : totals) {
    cpath::SiteStats& st = scope.sites[id(t.key)];
    st.time_compute += t.compute;
    st.time_mpi += t.mpi;
    st.calls += t.calls;
    if (t.fn >= 0) st.fn = t.fn;
  }
  return scope;
}

std::vector<graph::Zeroings::Result> ToZeroings(const Path& path, std::span<const SiteTotal> totals,
                                                const std::function<int32_t(uint64_t)>& id,
                                                std::span<const uint64_t> functions,
                                                const std::function<std::string(uint64_t)>& function_name,
                                                std::vector<std::string>* procedures) {
  std::map<int32_t, std::pair<int64_t, int64_t>> reductions;  // site id -> computation's, calls'
  for (const SiteTotal& t : totals) {
    const int32_t site = id(t.key);
    if (site != window::kNone) reductions.try_emplace(site, 0, 0);
  }
  for (const SiteShare& s : path.sites()) {
    const int32_t site = id(s.site);
    if (site == window::kNone) continue;
    // Two keys naming one site (a site's calls from two return addresses)
    // each saved at least what they say.
    auto& [compute, mpi] = reductions[site];
    compute = std::max(compute, s.reduction_compute);
    mpi = std::max(mpi, s.reduction_mpi);
  }
  std::vector<graph::Zeroings::Result> out;
  for (const auto& [site, saved] : reductions) {
    for (const bool compute : {true, false}) {
      graph::Zeroings::Result r;
      r.site = site;
      r.compute = compute;
      r.length = path.length() - (compute ? saved.first : saved.second);
      out.push_back(r);
    }
  }
  // Functions: two keys of one name (a static function in two modules)
  // each saved at least what they say.
  std::map<std::string, int64_t> by_name;
  for (uint64_t f : functions) by_name.try_emplace(function_name(f), 0);
  for (const FunctionShare& f : path.functions()) {
    int64_t& saved = by_name[function_name(f.function)];
    saved = std::max(saved, f.reduction);
  }
  procedures->clear();
  for (const auto& [name, saved] : by_name) {
    graph::Zeroings::Result r;
    r.procedure = static_cast<int32_t>(procedures->size());
    r.length = path.length() - saved;
    procedures->push_back(name);
    out.push_back(r);
  }
  return out;
}

}  // namespace rp::online
