#include "lib/diagnose/diagnose.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "lib/base/version.h"
#include "lib/diagnose/figures.h"
#include "lib/graph/window_graphs.h"
#include "lib/report/format.h"

namespace rp::diagnose {
namespace {

using window::kNone;

// The sums over the phases of a cluster, or over the run.
struct Totals {
  int64_t phases = 0;
  int64_t runtime = 0, ideal = 0;
  std::vector<int64_t> compute;  // by rank
  std::vector<bool> present;
  // Load imbalance (diagnosis paper §5.3.1), summed over the phases:
  // the symptom avg - min of the waiting at each phase's closing
  // synchronization, and each function's imb_cause max - avg.
  double symptom = 0;
  double wasted = 0;  // sum over ranks of (wait - min): rank time lost
  int64_t closed = 0;  // phases that end at a global synchronization
  std::map<std::pair<int32_t, int32_t>, int64_t> closing;  // (site, MPI function) -> phases it closed
  struct Cause {
    double ns = 0;               // sum of max - avg
    std::vector<double> excess;  // by rank: sum of its time above the mean
  };
  std::map<int32_t, Cause> causes;  // by function

  void Resize(size_t ranks) {
    if (compute.size() < ranks) {
      compute.resize(ranks);
      present.resize(ranks);
    }
  }

  void Add(const PhaseFigures& f) {
    ++phases;
    runtime += f.time();
    ideal += f.ideal;
    Resize(f.ranks.size());
    std::vector<size_t> members;
    bool synchronized = true;
    for (size_t r = 0; r < f.ranks.size(); ++r) {
      if (!f.ranks[r].present) continue;
      members.push_back(r);
      present[r] = true;
      compute[r] += f.ranks[r].compute;
      synchronized &= f.ranks[r].closing_site != kNone;
    }
    if (members.empty()) return;
    const double n = static_cast<double>(members.size());
    if (synchronized) {
      double sum = 0, least = INFINITY;
      for (size_t r : members) {
        sum += static_cast<double>(f.ranks[r].closing_wait);
        least = std::min(least, static_cast<double>(f.ranks[r].closing_wait));
      }
      symptom += sum / n - least;
      wasted += sum - n * least;
      ++closed;
      ++closing[{f.ranks[members[0]].closing_site, f.ranks[members[0]].closing_fn}];
    }
    for (const auto& [function, ns] : f.functions) {
      double sum = 0, most = 0;
      for (size_t r : members) {
        sum += static_cast<double>(ns[r]);
        most = std::max(most, static_cast<double>(ns[r]));
      }
      const double mean = sum / n;
      Cause& c = causes[function];
      c.ns += most - mean;
      if (c.excess.size() < f.ranks.size()) c.excess.resize(f.ranks.size());
      for (size_t r : members) c.excess[r] += std::max(0.0, static_cast<double>(ns[r]) - mean);
    }
  }

  int64_t ranks() const { return std::count(present.begin(), present.end(), true); }
  int64_t compute_max() const { return compute.empty() ? 0 : *std::max_element(compute.begin(), compute.end()); }
  int64_t compute_avg() const {
    int64_t sum = 0;
    for (size_t r = 0; r < compute.size(); ++r) sum += present[r] ? compute[r] : 0;
    return ranks() > 0 ? sum / ranks() : 0;
  }
};

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

// "ranks 2, 3 and 7" (at most 8 named).
std::string RankList(const std::vector<int64_t>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  const size_t shown = std::min<size_t>(ranks.size(), 8);
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) s += i + 1 == ranks.size() ? " and " : ", ";
    s += std::to_string(ranks[i]);
  }
  if (shown < ranks.size()) s += " and " + std::to_string(ranks.size() - shown) + " more";
  return s;
}

class Diagnosis {
 public:
  Diagnosis(const Config& config, const window::Dictionary& dict) : config_(config) {
    for (const trace::SiteRecord& s : dict.sites) sites_[s.id] = s;
  }

  void Add(const PhaseFigures& f) {
    // A phase without a cluster (tagged by another tool) is a cluster of
    // its own; the run without phases is one.
    const int64_t key = f.phase == kNone ? kNone : f.cluster >= 0 ? f.cluster : f.phase;
    clusters_[key].Add(f);
    run_.Add(f);
  }

  Status Write(const Figures& figures, trace::Writer& out) {
    tree_ = &figures.attribution().tree();
    // The run's time runs from its start to its end, not only over its
    // phases' (the time before the first phase's first task counts).
    const int64_t runtime = figures.run_end() - figures.run_start();
    run_.runtime = runtime;
    RP_RETURN_IF_ERROR(out.Write(Efficiency(run_, kNone)));
    for (const auto& [cluster, t] : clusters_) {
      if (cluster != kNone) RP_RETURN_IF_ERROR(out.Write(Efficiency(t, cluster)));
    }
    std::vector<trace::FindingRecord> findings;
    for (const auto& [cluster, t] : clusters_) Imbalance(cluster, t, runtime, &findings);
    std::stable_sort(findings.begin(), findings.end(),
                     [](const auto& a, const auto& b) { return a.severity > b.severity; });
    for (const trace::FindingRecord& f : findings) RP_RETURN_IF_ERROR(out.Write(f));
    return OkStatus();
  }

 private:
  // Load imbalance (diagnosis paper §5.3.1, Table 2): the symptom, avg -
  // min over ranks of the waiting at each phase's closing synchronization,
  // is what balancing the work before it would save; significant above
  // the threshold. Causes: functions whose max - avg over ranks, summed
  // the same way, is at least cause_share of it.
  void Imbalance(int64_t cluster, const Totals& t, int64_t runtime, std::vector<trace::FindingRecord>* out) const {
    if (runtime <= 0 || t.closed == 0 || t.symptom < config_.threshold * static_cast<double>(runtime)) return;
    trace::FindingRecord f;
    f.set_category("load_imbalance");
    const int64_t saved = std::llround(t.symptom);
    f.set_saved(saved);
    f.set_severity(Ratio(saved, runtime));
    const int64_t ranks = t.ranks();
    if (ranks > 0) f.set_wasted(t.wasted / (static_cast<double>(ranks) * static_cast<double>(runtime)));
    if (cluster != kNone) f.set_cluster(cluster);
    f.set_phases(t.phases);
    // The synchronization that closes most of its phases.
    const auto closing = std::max_element(t.closing.begin(), t.closing.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    const auto [site, fn] = closing->first;
    const std::string call = fn >= 0 ? mpi::kFunctions[fn].name : "?";
    f.set_call(call);
    std::string where = call;
    if (site != kNone) {
      f.set_site(site);
      if (auto s = sites_.find(site); s != sites_.end()) {
        if (s->second.has_fn()) f.set_fn(s->second.fn);
        if (s->second.has_file()) f.set_file(s->second.file);
        if (s->second.has_line()) f.set_line(s->second.line);
        if (s->second.has_file()) where += " (" + s->second.file + ":" + std::to_string(s->second.line) + ")";
      }
    }
    // Causes, the largest first; ties by name.
    std::vector<std::pair<double, std::string>> causes;
    std::map<std::string, const Totals::Cause*> by_name;
    double all = 0;
    for (const auto& [function, c] : t.causes) {
      const std::string& name = tree_->functions()[function];
      if (c.ns < config_.cause_share * t.symptom) continue;
      causes.emplace_back(c.ns, name);
      by_name[name] = &c;
      all += c.ns;
    }
    std::sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<std::string> names;
    std::vector<int64_t> ns;
    for (const auto& [n, name] : causes) {
      names.push_back(name);
      ns.push_back(std::llround(n));
    }
    const double per_phase = t.symptom / static_cast<double>(t.closed);
    std::string evidence = "ranks wait " + report::Duration(std::llround(per_phase)) + " more than the least waiting one, on average over ranks, at " +
                           where + " in each of " + std::to_string(t.closed) + " phases: " +
                           report::Duration(saved) + " of the run's " + report::Duration(runtime);
    std::string remedy;
    if (!causes.empty()) {
      f.set_causes(names);
      f.set_cause_ns(ns);
      if (all > 1.1 * t.symptom) f.set_partial(true);
      // The ranks that do the top cause's extra work: at least half the
      // largest excess.
      const Totals::Cause& top = *by_name[names[0]];
      const double most = *std::max_element(top.excess.begin(), top.excess.end());
      std::vector<int64_t> heavy;
      for (size_t r = 0; r < top.excess.size(); ++r) {
        if (most > 0 && top.excess[r] >= 0.5 * most) heavy.push_back(static_cast<int64_t>(r));
      }
      f.set_ranks(heavy);
      evidence += "; " + report::ShortFunction(names[0]) + " on its busiest rank takes " +
                  report::Duration(std::llround(causes[0].first / static_cast<double>(t.phases))) +
                  " more than its mean per phase, most on " + RankList(heavy);
      if (f.has_partial()) evidence += " (the causes add up to more than the loss: partly evened out by others)";
      remedy = "Distribute the work in " + report::ShortFunction(names[0]) + " evenly over the ranks (balance the " +
               "decomposition, or move work off " + RankList(heavy) + ")";
    } else {
      remedy = "Distribute the work before " + call + " evenly over the ranks; record samples (rp-record " +
               "--sample-hz 200) to name the functions that differ";
    }
    f.set_evidence(evidence);
    f.set_remedy(remedy);
    out->push_back(f);
  }

  const Config& config_;
  std::map<int64_t, trace::SiteRecord> sites_;
  std::map<int64_t, Totals> clusters_;
  Totals run_;  // its own runtime; the other sums over all phases
  const profile::ContextTree* tree_ = nullptr;
};

}  // namespace

Status Run(const Config& config, trace::InputSet& input, trace::Writer& out) {
  window::WindowReader windows(input, window::Boundaries::kClean, config.read);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-diagnose ") + kVersion, &out, nullptr,
                                          !config.passthrough));
  Figures figures(dict);
  RP_RETURN_IF_ERROR(figures.NoteRecords(dict));
  Diagnosis diagnosis(config, dict);
  std::vector<PhaseFigures> ended;
  int64_t backward = 0;
  {
    graph::WindowGraphs source(windows, 1);
    for (;;) {
      RP_ASSIGN_OR_RETURN(std::unique_ptr<graph::WindowGraph> w, source.Next());
      if (!w) break;
      backward += w->graph.problems().backward_edges;
      if (config.passthrough) {
        for (const window::Line& r : w->window.lines) RP_RETURN_IF_ERROR(out.WriteRaw(w->window.text(r)));
      }
      RP_RETURN_IF_ERROR(figures.AddWindow(*w, &ended));
      for (const PhaseFigures& f : ended) diagnosis.Add(f);
      ended.clear();
      source.Recycle(std::move(w));
    }
  }
  window::WarnAboutInput(windows);
  if (!figures.started()) return NothingError("the trace has no mpi records: nothing to diagnose");
  figures.Finish(&ended);
  for (const PhaseFigures& f : ended) diagnosis.Add(f);
  if (!figures.phased()) {
    spdlog::warn("no phase records (rp-phases): the run is one phase, so load imbalance at the synchronizations "
                 "inside it is not measured; run rp-phases first");
  }
  if (!figures.attribution().any_samples()) {
    spdlog::info("the trace has no samples: causes are named by the function calling the MPI call that ends "
                 "each computation (rp-record --sample-hz 200 names the code that computes)");
  }
  if (backward > 0) {
    spdlog::warn("{} dependencies go back in time (a receive ends before its send began): the clocks are not "
                 "synchronized; run rp-clocksync first",
                 backward);
  }
  RP_RETURN_IF_ERROR(diagnosis.Write(figures, out));
  return out.Close();
}

}  // namespace rp::diagnose
