#include "lib/diagnose/diagnosis.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lib/diagnose/findings.h"

namespace rp::diagnose {
namespace {

using window::kNone;

double Ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0; }

trace::EfficiencyRecord Efficiency(const Totals& t, int64_t cluster) {
  trace::EfficiencyRecord r;
  if (cluster != kNone) r.set_cluster(cluster);
  r.set_phases(t.phases);
  r.set_ranks(t.ranks());
  r.set_runtime(t.runtime);
  // The ideal time cannot be shorter than a rank's own computation: a
  // path of computation alone, its longest, is at least each rank's.
  const int64_t ideal = std::max(t.ideal, t.compute_max());
  r.set_ideal(ideal);
  r.set_compute_avg(t.compute_avg());
  r.set_compute_max(t.compute_max());
  r.set_load_balance(Ratio(t.compute_avg(), t.compute_max()));
  r.set_communication(Ratio(t.compute_max(), t.runtime));
  r.set_serialisation(Ratio(t.compute_max(), ideal));
  r.set_transfer(Ratio(ideal, t.runtime));
  r.set_parallel(Ratio(t.compute_avg(), t.runtime));
  return r;
}

}  // namespace

void Diagnosis::Add(const PhaseFigures& f) {
  // A phase without a cluster (tagged by another tool) is a cluster of
  // its own; the run without phases is one.
  const int64_t key = f.phase == kNone ? kNone : f.cluster >= 0 ? f.cluster : f.phase;
  clusters_[key].Add(f);
  run_.Add(f);
}

Status Diagnosis::Write(const Figures& figures, const PathRecords& path, trace::Writer& out) {
  // The run's time runs from its start to its end, not only over its
  // phases' (the time before the first phase's first task counts).
  const int64_t runtime = figures.run_end() - figures.run_start();
  run_.runtime = runtime;
  trace::EfficiencyRecord run = Efficiency(run_, kNone);
  run.set_rank_compute(run_.compute);
  run.set_rank_mpi(run_.mpi);
  run.set_rank_wait(run_.wait);
  RP_RETURN_IF_ERROR(out.Write(run));
  for (const auto& [cluster, t] : clusters_) {
    if (cluster != kNone) RP_RETURN_IF_ERROR(out.Write(Efficiency(t, cluster)));
  }
  const Findings findings(FindingConfig{config_.threshold, config_.cause_share}, dict_,
                          figures.attribution().tree());
  std::vector<trace::FindingRecord> all;
  for (const auto& [cluster, t] : clusters_) findings.Imbalance(cluster, t, runtime, &all);
  for (const auto& [cluster, t] : clusters_) findings.WaitStates(cluster, t, runtime, &all);
  // What the imbalance and wait-state findings tell, which the later
  // findings would tell again: their sites (the path's excess computation
  // there) and first causes, with the most such a finding saves (a site
  // computing mostly one of them; a function's I/O).
  std::set<int64_t> covered;
  std::map<std::string, int64_t> covered_causes;
  std::set<std::string> first_causes;
  for (const trace::FindingRecord& f : all) {
    if (f.has_site()) covered.insert(f.site);
    if (!f.has_causes() || f.causes.empty()) continue;
    int64_t& most = covered_causes[f.causes[0]];
    most = std::max(most, f.saved);
    if (f.category != "mpmd_imbalance") first_causes.insert(f.causes[0]);
  }
  const size_t before = all.size();
  for (const auto& [cluster, t] : clusters_) findings.Communication(cluster, t, run_, runtime, path, &all);
  for (const auto& [cluster, t] : clusters_) findings.PosixIo(cluster, t, runtime, path, first_causes, &all);
  std::set<int64_t> named;  // sites a communication or I/O finding tells
  for (size_t i = before; i < all.size(); ++i) {
    if (all[i].has_site()) named.insert(all[i].site);
  }
  const profile::ContextTree& tree = figures.attribution().tree();
  findings.CriticalPath(
      path, [&](int32_t site) { return figures.callers(site); },
      [&](int32_t site) {
        const int32_t f = figures.DominantFunction(site);
        return f >= 0 ? tree.functions()[f] : std::string();
      },
      [&](int32_t site) { return figures.PathCompute(site); }, runtime, covered, covered_causes, named, &all);
  // Most severe first; ties in a fixed order, so reports diff well.
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.severity > b.severity; });
  for (const trace::FindingRecord& f : all) RP_RETURN_IF_ERROR(out.Write(f));
  // A picture of the cluster that took the most time.
  int64_t longest = kNone, most = -1;
  for (const auto& [cluster, t] : clusters_) {
    if (t.runtime > most) most = t.runtime, longest = cluster;
  }
  return figures.timeline().Write(longest, out);
}

void WarnAboutRun(bool phased, bool samples, int64_t backward_edges) {
  if (!phased) {
    spdlog::warn("no phase records (rp-phases): the run is one phase, so load imbalance is measured only at its "
                 "last synchronization; run rp-phases first");
  }
  if (!samples) {
    spdlog::info("the trace has no samples: POSIX I/O findings (read, write, fsync: seen only in samples) are "
                 "skipped, and causes are named by the function calling the MPI call that ends each computation "
                 "(rp-record --sample-hz 200 names the code that computes)");
  }
  if (backward_edges > 0) {
    spdlog::warn("{} dependencies go back in time (a receive ends before its send began): the clocks are not "
                 "synchronized; run rp-clocksync first",
                 backward_edges);
  }
}

}  // namespace rp::diagnose
