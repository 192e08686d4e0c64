#include "lib/repr/path_records.h"

#include <set>

#include "lib/trace/codec.h"

namespace rp::repr {

Status WritePath(const PathPlace& place, const std::vector<Interval>& summary, trace::Writer& out) {
  std::set<int64_t> ranks;
  int64_t tasks = 0;
  for (const Interval& i : summary) {
    if (i.rank != kRestRank) ranks.insert(i.rank);
    tasks += i.tasks;
  }
  trace::PathRecord r;
  if (place.phase >= 0) r.set_phase(place.phase);
  if (place.cluster >= 0) r.set_cluster(place.cluster);
  r.set_order(int64_t{place.order} + 1);
  r.set_percentile(place.percentile);
  r.set_cost(place.cost);
  if (place.length > 0) r.set_share(static_cast<double>(place.cost) / static_cast<double>(place.length));
  r.set_ranks(std::vector<int64_t>(ranks.begin(), ranks.end()));
  r.set_tasks(tasks);
  r.set_intervals(static_cast<int64_t>(summary.size()));
  RP_RETURN_IF_ERROR(out.Write(r));
  for (const Interval& i : summary) {
    trace::PathIntervalRecord w;
    if (place.phase >= 0) w.set_phase(place.phase);
    w.set_path(int64_t{place.order} + 1);
    w.set_rank(i.rank);
    w.set_first(i.first);
    w.set_last(i.last);
    w.set_t0(i.t0);
    w.set_t1(i.t1);
    w.set_cost(i.cost);
    w.set_tasks(i.tasks);
    RP_RETURN_IF_ERROR(out.Write(w));
  }
  return OkStatus();
}

double Percentile(Select select, int k, int j, int position, int total, int kept) {
  if (select == Select::kRepr && kept == k) return NominalPercentile(j, k);
  return total > 1 ? 100.0 * (1.0 - static_cast<double>(position) / (total - 1)) : 100.0;
}

}  // namespace rp::repr
