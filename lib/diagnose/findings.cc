#include "lib/diagnose/findings.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <utility>

#include "lib/report/format.h"

namespace rp::diagnose {

using window::kNone;

namespace {

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

// The share of the symptom a function's phase-by-phase max - avg must reach
// to be named a cause of dynamic imbalance.
constexpr double kMovingShare = 0.5;

// Functions whose `ns` is at least `least`, the largest first (ties by name).
template <typename Map>
std::vector<std::pair<double, int32_t>> Significant(const Map& by_function, double least,
                                                    const profile::ContextTree& tree) {
  std::vector<std::pair<double, int32_t>> out;
  for (const auto& [function, v] : by_function) {
    const double ns = static_cast<double>(v);
    if (ns > 0 && ns >= least) out.emplace_back(ns, function);
  }
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : tree.functions()[a.second] < tree.functions()[b.second];
  });
  return out;
}

// One or a few ranks (at most an eighth of them) do 90% of the work.
bool Serial(const std::vector<double>& time, int64_t ranks) {
  std::vector<double> sorted = time;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const size_t few = static_cast<size_t>(std::max<int64_t>(1, ranks / 8));
  double all = 0, top = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    all += sorted[i];
    if (i < few) top += sorted[i];
  }
  return ranks > 1 && all > 0 && top >= 0.9 * all;
}

std::string_view Describe(Pattern p) {
  switch (p) {
    case Pattern::kLateSender: return "receiving messages sent late (late sender)";
    case Pattern::kWrongOrder:
      return "receiving messages sent late while messages sent earlier wait to be received (late sender, wrong "
             "order)";
    case Pattern::kLateReceiver: return "sending until the receive is posted (late receiver)";
    case Pattern::kWaitNxN: return "waiting for the last rank to enter (wait at N x N)";
    case Pattern::kWaitBarrier: return "waiting for the last rank to enter (wait at barrier)";
    case Pattern::kLateBroadcast: return "waiting for the root to enter (late broadcast)";
    case Pattern::kEarlyReduce: return "the root waiting for the last member (early reduce)";
    case Pattern::kEarlyScan: return "waiting for a lower rank to enter (early scan)";
    case Pattern::kNone: break;
  }
  return "waiting";
}

// MPI_Allreduce -> MPI_Iallreduce.
std::string Nonblocking(const std::string& call) {
  if (call.size() < 5 || !call.starts_with("MPI_")) return "its nonblocking form";
  return "MPI_I" + std::string(1, static_cast<char>(std::tolower(static_cast<unsigned char>(call[4])))) +
         call.substr(5);
}

// Scalasca's pattern descriptions and Table 2's "wait for partner", in
// plain words; `cause` names the delay when known.
std::string Remedy(Pattern p, const std::string& call, const std::string& cause) {
  const std::string balance = cause.empty() ? "" : "; or balance " + cause + " so that the late rank arrives sooner";
  switch (p) {
    case Pattern::kLateSender:
      return "Post the receive early (MPI_Irecv) and do independent work before waiting for it" + balance;
    case Pattern::kWrongOrder:
      return "Receive the messages in the order they are sent, or take whichever arrives first (MPI_ANY_SOURCE, "
             "MPI_Waitany)" + balance;
    case Pattern::kLateReceiver:
      return "The send blocks until its receive is posted (a synchronous or large message): post the receive "
             "earlier, or send with MPI_Isend and complete it after independent work" + balance;
    case Pattern::kWaitNxN:
      return "Balance the work before " + call + (cause.empty() ? "" : " (" + cause + ")") +
             ", or start it nonblocking (" + Nonblocking(call) + ") and overlap it with independent work";
    case Pattern::kWaitBarrier:
      return "Remove the barrier unless correctness needs it; otherwise balance the work before it" +
             (cause.empty() ? "" : " (" + cause + ")");
    case Pattern::kLateBroadcast:
      return "The root enters late: move its work before the broadcast" + (cause.empty() ? "" : " (" + cause + ")") +
             " off the other ranks' way, or start the broadcast earlier (nonblocking)";
    case Pattern::kEarlyReduce:
      return "The root waits for the members: give it independent work before the reduction, or use the "
             "nonblocking form" + balance;
    case Pattern::kEarlyScan: return "Balance the work before the scan over the ranks" + balance;
    case Pattern::kNone: break;
  }
  return "";
}

}  // namespace

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

std::vector<int64_t> Heaviest(const std::vector<double>& by_rank) {
  std::vector<int64_t> out;
  const double most = by_rank.empty() ? 0 : *std::max_element(by_rank.begin(), by_rank.end());
  for (size_t r = 0; r < by_rank.size(); ++r) {
    if (most > 0 && by_rank[r] >= 0.5 * most) out.push_back(static_cast<int64_t>(r));
  }
  return out;
}

Findings::Findings(const FindingConfig& config, const window::Dictionary& dict, const profile::ContextTree& tree)
    : config_(config), tree_(tree) {
  for (const trace::SiteRecord& s : dict.sites) sites_[s.id] = s;
}

std::vector<std::string> Findings::SetCauses(const std::vector<std::pair<double, int32_t>>& causes,
                                             trace::FindingRecord* f) const {
  std::vector<std::string> names;
  std::vector<int64_t> ns;
  for (const auto& [n, function] : causes) {
    names.push_back(Function(function));
    ns.push_back(std::llround(n));
  }
  f->set_causes(names);
  f->set_cause_ns(ns);
  return names;
}

std::string Findings::Locate(int64_t cluster, const Totals* t, int64_t saved, int64_t runtime, int32_t site,
                             int32_t fn, trace::FindingRecord* f) const {
  f->set_saved(saved);
  f->set_severity(Ratio(static_cast<double>(saved), static_cast<double>(runtime)));
  if (cluster != kNone) f->set_cluster(cluster);
  if (t) f->set_phases(t->phases);
  const std::string call = fn >= 0 ? mpi::kFunctions[fn].name : "?";
  f->set_call(call);
  std::string where = call;
  if (site == kNone) return where;
  f->set_site(site);
  auto s = sites_.find(site);
  if (s == sites_.end()) return where;
  if (s->second.has_fn()) f->set_fn(s->second.fn);
  if (s->second.has_file()) f->set_file(s->second.file);
  if (s->second.has_line()) f->set_line(s->second.line);
  if (s->second.has_file()) {
    where += " (" + s->second.file + (s->second.has_line() ? ":" + std::to_string(s->second.line) : "") + ")";
  } else if (s->second.has_fn()) {
    where += " in " + report::ShortFunction(s->second.fn);  // a build without line tables
  }
  return where;
}

// Load imbalance (diagnosis paper §5.3.1, Table 2): the symptom, avg - min
// over ranks of the waiting at each phase's closing synchronization, is
// what balancing the work before it would save; significant above the
// threshold. Causes: functions whose max - avg over ranks, summed the same
// way, is at least cause_share of it. Serialisation (§3) when the first
// cause runs on one or a few ranks.
void Findings::Imbalance(int64_t cluster, const Totals& t, int64_t runtime,
                         std::vector<trace::FindingRecord>* out) const {
  if (runtime <= 0 || t.closed == 0 || t.symptom < config_.threshold * static_cast<double>(runtime)) return;
  if (2 * t.mpmd_phases > t.phases) return Groups(cluster, t, runtime, out);
  trace::FindingRecord f;
  f.set_category("load_imbalance");
  std::map<int32_t, double> by_function;
  for (const auto& [function, c] : t.causes) by_function[function] = t.CauseNs(c);
  auto causes = Significant(by_function, config_.cause_share * t.symptom, tree_);
  // Dynamic imbalance: no function differs over the run, but phase by
  // phase one rank is busier, a different one each time (the paper's max -
  // avg in the same phase, summed). Half the symptom at least: the
  // maximum of equal but noisy per-phase times lies above their mean.
  bool moving = false;
  if (causes.empty()) {
    std::map<int32_t, double> by_phase;
    for (const auto& [function, c] : t.causes) by_phase[function] = c.phase_excess;
    causes = Significant(by_phase, kMovingShare * t.symptom, tree_);
    moving = !causes.empty();
  }
  // No computation explains the waiting but an MPI-IO site on some ranks
  // does (a rank writing before the synchronization): the I/O finding
  // tells it.
  if (causes.empty()) {
    for (const auto& [site, sf] : t.sites) {
      if (sf.fn < 0 || sf.ranks.empty()) continue;
      const mpi::Category c = mpi::kFunctions[sf.fn].category;
      if (c != mpi::Category::kFileIo && c != mpi::Category::kFileOp) continue;
      double sum = 0, most = 0;
      for (int64_t x : sf.ranks) sum += static_cast<double>(x), most = std::max(most, static_cast<double>(x));
      if (most - sum / static_cast<double>(t.ranks()) >= config_.cause_share * t.symptom) return;
    }
  }
  // Severity: the what-if of balancing the first cause where measured, the
  // symptom (the paper's bound) elsewhere and without a cause.
  int64_t saved = std::llround(t.symptom);
  if (!causes.empty()) {
    const auto w = t.what_if.find(causes[0].second);
    saved = std::max<int64_t>(0, std::llround((w != t.what_if.end() ? static_cast<double>(w->second) : 0.0) +
                                              t.unmeasured));
  }
  if (saved <= 0 || static_cast<double>(saved) < config_.threshold * static_cast<double>(runtime)) return;
  const int64_t ranks = t.ranks();
  if (ranks > 0) f.set_wasted(t.wasted / (static_cast<double>(ranks) * static_cast<double>(runtime)));
  // The synchronization that closes most of its phases.
  const auto closing = std::max_element(t.closing.begin(), t.closing.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto [site, fn] = closing->first;
  const std::string where = Locate(cluster, &t, saved, runtime, site, fn, &f);
  const double per_phase = t.symptom / static_cast<double>(t.closed);
  std::string evidence = "ranks wait " + report::Duration(std::llround(per_phase)) +
                         " more than the least waiting one, on average over ranks, at " + where + " in each of " +
                         std::to_string(t.closed) + " phases: " + report::Duration(std::llround(t.symptom)) +
                         " of the run's " + report::Duration(runtime);
  if (!causes.empty()) {
    evidence += "; with " + report::ShortFunction(Function(causes[0].second)) +
                " balanced (its time on every rank the mean), the phases would end " + report::Duration(saved) +
                " sooner in all (recomputed on the graph" +
                (t.unmeasured > 0 ? std::string(", the bound where phases span windows") : std::string()) + ")";
  }
  std::string remedy;
  f.set_rank_values(t.closing_wait);
  f.set_rank_label("waiting at " + f.call);
  if (!causes.empty()) {
    const std::vector<std::string> names = SetCauses(causes, &f);
    double all = 0;
    for (const auto& [n, function] : causes) all += n;
    if (all > 1.1 * t.symptom) f.set_partial(true);
    // The ranks that do the first cause's extra work: at least half the
    // largest excess.
    const Totals::Cause& top = t.causes.at(causes[0].second);
    const std::vector<int64_t> heavy = Heaviest(moving ? top.busiest : t.Excess(top));
    f.set_ranks(heavy);
    const std::string name = report::ShortFunction(names[0]);
    std::vector<int64_t> by_rank;
    for (double x : top.time) by_rank.push_back(std::llround(x));
    f.set_rank_values(by_rank);
    f.set_rank_label(name + " (computation)");
    if (moving) {
      int64_t most = 0;
      for (double n : top.busiest) most = std::max<int64_t>(most, std::llround(n));
      evidence += "; " + name + " on the busiest rank of each phase takes " +
                  report::Duration(std::llround(causes[0].first / static_cast<double>(t.phases))) +
                  " more than its mean in that phase, but the busiest rank changes (" + RankList(heavy) +
                  ", none in more than " + std::to_string(most) + " of the " + std::to_string(t.phases) +
                  " phases): over the run the ranks' times even out";
      remedy = "Balance the work in " + name + " phase by phase: the load moves between the ranks (rebalance "
               "as it shifts: dynamic load balancing, work stealing, or repartitioning every few phases)";
    } else if (Serial(top.time, ranks)) {
      f.set_category("serialisation");
      double all_time = 0;
      for (double x : top.time) all_time += x;
      const std::string alone = RankList(Heaviest(top.time));
      evidence += "; " + name + " runs on " + alone + " alone (" +
                  report::Duration(std::llround(all_time / static_cast<double>(t.phases))) +
                  " per phase) while the other ranks wait";
      remedy = "Spread the work of " + name + " over all ranks (for I/O: parallel I/O, each rank writing its " +
               "part), or let the other ranks go on while " + alone +
               " does it (no synchronization right after it)";
    } else {
      evidence += "; " + name + " on its busiest rank takes " +
                  report::Duration(std::llround(causes[0].first / static_cast<double>(t.phases))) +
                  " more than its mean per phase, most on " + RankList(heavy);
      remedy = "Distribute the work in " + name + " evenly over the ranks (balance the decomposition, or move " +
               "work off " + RankList(heavy) + ")";
    }
    if (f.has_partial()) evidence += " (the causes add up to more than the loss: partly evened out by others)";
    // The first cause's time in POSIX I/O, by the samples: the remedy is I/O's.
    if (auto io = t.posix_io.find(causes[0].second); io != t.posix_io.end()) {
      double in_io = 0, all_time = 0;
      for (double x : io->second) in_io += x;
      for (double x : top.time) all_time += x;
      if (all_time > 0 && in_io >= 0.5 * all_time) {
        evidence += "; " + std::to_string(std::llround(100 * in_io / all_time)) + "% of " + name +
                    "'s time is in read/write/fsync (I/O)";
        remedy = "The work is I/O: let every rank write its part (MPI-IO, collective writes), write less often or "
                 "in larger blocks, or overlap it with the others' work (asynchronous I/O)";
      }
    }
  } else {
    // No function's time differs between the ranks over the phases: the
    // slowest rank changes from phase to phase, or the ranks wait for one
    // another in turn before the synchronization.
    evidence += "; no function's time differs between the ranks over the phases";
    remedy = "The waiting moves from rank to rank: the slowest rank changes from phase to phase (balance each "
             "phase's work, not the run's), or the ranks wait for one another in turn before " + f.call +
             " (a chain of messages); rp-cpath shows the ranks and functions on the critical path";
  }
  f.set_evidence(evidence);
  f.set_remedy(remedy);
  out->push_back(f);
}

// MPMD clusters (diagnosis paper §5.4), group by group, then between groups.
void Findings::Groups(int64_t cluster, const Totals& t, int64_t runtime, std::vector<trace::FindingRecord>* out) const {
  const double least = config_.threshold * static_cast<double>(runtime);
  const auto [site, fn] =
      std::max_element(t.closing.begin(), t.closing.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  auto members_of = [](const std::vector<bool>& m) {
    std::vector<int64_t> out;
    for (size_t r = 0; r < m.size(); ++r) {
      if (m[r]) out.push_back(static_cast<int64_t>(r));
    }
    return out;
  };
  const double all = static_cast<double>(t.compute_avg());
  const Totals::Group* heaviest = nullptr;
  double heaviest_avg = 0;
  for (const auto& [sites, g] : t.groups) {
    const std::vector<int64_t> members = members_of(g.members);
    if (members.empty()) continue;
    double sum = 0;
    for (int64_t r : members) sum += static_cast<double>(t.compute[r]);
    const double avg = sum / static_cast<double>(members.size());
    if (!heaviest || avg > heaviest_avg) heaviest = &g, heaviest_avg = avg;
    // Within the group: the paper's §5.3 on its members.
    if (g.closed == 0 || g.symptom < least || members.size() < 2) continue;
    std::map<int32_t, double> by_function;
    for (const auto& [function, time] : g.time) by_function[function] = MaxOverMean(time, members);
    const auto causes = Significant(by_function, config_.cause_share * g.symptom, tree_);
    trace::FindingRecord f;
    f.set_category("load_imbalance");
    const int64_t saved = std::llround(g.symptom);
    const std::string where = Locate(cluster, &t, saved, runtime, site, fn, &f);
    f.set_group(members);
    std::string evidence = "in the group of " + RankList(members) + " (one control flow of this MPMD phase), ranks wait " +
                           report::Duration(std::llround(g.symptom / static_cast<double>(g.closed))) +
                           " more than the group's least waiting one, on average, at " + where + " in each of " +
                           std::to_string(g.closed) + " phases: " + report::Duration(saved) + " (the bound)";
    if (!causes.empty()) {
      const std::vector<std::string> names = SetCauses(causes, &f);
      const std::vector<double> excess =
          ExcessOverMean(g.time.at(causes[0].second), members, g.members.size());
      f.set_ranks(Heaviest(excess));
      evidence += "; " + report::ShortFunction(names[0]) + " takes most above its mean on " + RankList(f.ranks);
      f.set_remedy("Distribute the work in " + report::ShortFunction(names[0]) + " evenly over the group's ranks");
    } else {
      f.set_remedy("Distribute the group's work before " + f.call + " evenly over its ranks");
    }
    f.set_evidence(evidence);
    out->push_back(f);
  }
  // Between groups: the heaviest group's mean computation above all ranks'.
  if (!heaviest || heaviest_avg - all < least) return;
  trace::FindingRecord f;
  f.set_category("mpmd_imbalance");
  const int64_t saved = std::llround(heaviest_avg - all);
  const std::string where = Locate(cluster, &t, saved, runtime, site, fn, &f);
  const std::vector<int64_t> members = members_of(heaviest->members);
  f.set_group(members);
  f.set_ranks(members);
  // The functions the group spends most above all ranks' mean.
  std::map<int32_t, double> by_function;
  for (const auto& [function, c] : t.causes) {
    double in_group = 0, everywhere = 0;
    for (int64_t r : members) in_group += static_cast<size_t>(r) < c.time.size() ? c.time[r] : 0;
    for (double x : c.time) everywhere += x;
    by_function[function] = in_group / static_cast<double>(members.size()) - everywhere / static_cast<double>(t.ranks());
  }
  const auto causes = Significant(by_function, config_.cause_share * (heaviest_avg - all), tree_);
  if (!causes.empty()) SetCauses(causes, &f);
  f.set_evidence("this MPMD phase's ranks follow " + std::to_string(t.groups.size()) +
                 " control flows; the group of " + RankList(members) + " computes " +
                 report::Duration(std::llround(heaviest_avg)) + " per rank, the ranks of all groups " +
                 report::Duration(std::llround(all)) + " on average, over " + std::to_string(t.phases) +
                 " phases; the others wait for it at " + where);
  f.set_remedy("Give the groups work in proportion to their ranks: more ranks to the group of " + RankList(members) +
               ", or less of its work" +
               (causes.empty() ? std::string() : " (" + report::ShortFunction(f.causes[0]) + ")"));
  out->push_back(f);
}

// Wait states (wait_states.h), one finding per pattern and call site:
// saved = the waiting averaged over the cluster's ranks; causes: the
// functions whose delay costs are at least cause_share of the waiting.
void Findings::WaitStates(int64_t cluster, const Totals& t, int64_t runtime,
                          std::vector<trace::FindingRecord>* out) const {
  const int64_t ranks = t.ranks();
  if (runtime <= 0 || ranks == 0) return;
  for (const auto& [key, sum] : t.waits) {
    const double avg = static_cast<double>(sum.ns) / static_cast<double>(ranks);
    if (avg < config_.threshold * static_cast<double>(runtime)) continue;
    trace::FindingRecord f;
    f.set_category(std::string(PatternName(key.pattern)));
    const int64_t saved = std::llround(avg);
    f.set_wasted(Ratio(static_cast<double>(sum.ns), static_cast<double>(ranks) * static_cast<double>(runtime)));
    const std::string where = Locate(cluster, &t, saved, runtime, key.site, key.fn, &f);
    std::vector<double> waiting(sum.waiting.begin(), sum.waiting.end());
    std::vector<double> delaying(sum.delaying.begin(), sum.delaying.end());
    const auto causes = Significant(sum.causes, config_.cause_share * static_cast<double>(sum.ns), tree_);
    const std::vector<int64_t> waiters = Heaviest(waiting);
    std::string evidence = RankList(waiters) + (waiters.size() == 1 ? " waits " : " wait ") +
                           "at " + where + ", " + std::string(Describe(key.pattern)) + ": " +
                           report::Duration(sum.ns) + " in " + std::to_string(sum.count) +
                           (sum.count == 1 ? " wait state, " : " wait states, ") +
                           report::Duration(saved) + " per rank of the run's " + report::Duration(runtime);
    std::string cause;
    if (!causes.empty()) {
      const std::vector<std::string> names = SetCauses(causes, &f);
      const std::vector<int64_t> late = Heaviest(delaying);
      f.set_ranks(late);
      cause = report::ShortFunction(names[0]) + " on " + RankList(late);
      evidence += "; the delay: " + cause + " computes longer before the call waited for (" +
                  report::Duration(f.cause_ns[0]) + " of the waiting)";
    } else {
      f.set_ranks(waiters);
    }
    if (sum.propagated > 0) {
      evidence += "; " + report::Duration(sum.propagated) +
                  " of it propagates an earlier wait (the late rank was itself waiting)";
    }
    f.set_rank_values(sum.waiting);
    f.set_rank_label("waiting at " + f.call);
    f.set_evidence(evidence);
    f.set_remedy(Remedy(key.pattern, f.call, cause));
    out->push_back(f);
  }
}

// Communication and I/O findings (see findings.h), per call site.
void Findings::Communication(int64_t cluster, const Totals& t, const Totals& run, int64_t runtime,
                             const PathRecords& path, std::vector<trace::FindingRecord>* out) const {
  const int64_t ranks = t.ranks();
  if (runtime <= 0 || ranks == 0) return;
  const double least = config_.threshold * static_cast<double>(runtime);
  constexpr double kShortCall = 50e3;        // ns
  constexpr double kLargeMessage = 65536;    // bytes
  for (const auto& [site, s] : t.sites) {
    if (s.fn < 0 || s.calls == 0) continue;
    const mpi::Category category = mpi::kFunctions[s.fn].category;
    const bool io = category == mpi::Category::kFileIo || category == mpi::Category::kFileOp ||
                    category == mpi::Category::kFileOpen || category == mpi::Category::kFileClose;
    const double work = static_cast<double>(io ? s.time : s.work);
    std::vector<double> by_rank(s.ranks.begin(), s.ranks.end());
    const bool serial_io = io && Serial(by_rank, ranks);
    // Serial I/O spread over all ranks saves its max - avg over them (as
    // serialisation); other calls removed save their average.
    double avg = work / static_cast<double>(ranks);
    if (serial_io) avg = *std::max_element(by_rank.begin(), by_rank.end()) - avg;
    // The what-if of the site's calls taking no time, where the critical
    // path's records give it.
    double what_if = avg;
    if (path.summary) {
      what_if = 0;
      for (const trace::CpZeroingRecord& z : path.zeroings) {
        if (z.kind == "mpi" && z.has_site() && z.site == site) what_if = static_cast<double>(z.reduction);
      }
      // The run's what-if, this cluster's share of it.
      const auto r = run.sites.find(site);
      const double everywhere = r == run.sites.end() ? 0 : static_cast<double>(io ? r->second.time : r->second.work);
      if (everywhere > work) what_if *= work / everywhere;
    }
    // A large transfer holds both ends (the sender's call and the
    // receiver's completion): one site's what-if leaves the other end on
    // the path and understates it, so large messages keep Table 2's avg(N).
    const bool large = !io && static_cast<double>(s.bytes) / static_cast<double>(s.calls) >= 65536;
    // The calls taken out: the what-if where the critical path gives one
    // (calls off the path save nothing, calls of one rank on it save their
    // whole time); spreading serial I/O saves at most its what-if.
    const double saving = large ? avg : serial_io ? std::min(avg, what_if) : what_if;
    if (saving <= 0 || saving < least) continue;
    int64_t callers = 0;
    for (int64_t ns : s.ranks) callers += ns > 0;
    const double per_call = work / static_cast<double>(s.calls);
    const double bytes_per_call = static_cast<double>(s.bytes) / static_cast<double>(s.calls);
    const std::string_view name = mpi::kFunctions[s.fn].name;
    const bool polls = name.starts_with("MPI_Test") || name == "MPI_Iprobe" || name == "MPI_Improbe";
    const double hit_rate = static_cast<double>(s.hits) / static_cast<double>(s.calls);
    std::string category_name;
    if (io) {
      category_name = serial_io ? "serial_io" : "io";
    } else if (polls && hit_rate < 0.10) {
      category_name = "polling";
    } else if (bytes_per_call >= kLargeMessage) {
      category_name = "large_messages";
    } else if (per_call < kShortCall && s.calls >= 10 * std::max<int64_t>(callers, 1)) {
      category_name = "frequent_communication";
    } else {
      continue;  // long calls, not waiting, small: none of these
    }
    trace::FindingRecord f;
    f.set_category(category_name);
    const int64_t saved = std::llround(saving);
    f.set_wasted(Ratio(work, static_cast<double>(ranks) * static_cast<double>(runtime)));
    const std::string where = Locate(cluster, &t, saved, runtime, site, s.fn, &f);
    f.set_rank_values(s.ranks);
    f.set_rank_label("time in " + f.call);
    f.set_ranks(Heaviest(by_rank));
    const std::string calls = std::to_string(s.calls) + (s.calls == 1 ? " call" : " calls");
    std::string per_rank = report::Duration(std::llround(avg)) + " per rank of the run's " + report::Duration(runtime);
    if (path.summary && !large) {
      per_rank += "; were they instant, the run would be " + report::Duration(std::llround(what_if)) +
                  " shorter (the what-if on the graph)";
    }
    if (category_name == "polling") {
      f.set_evidence(calls + " to " + where + ", " + std::to_string(std::llround(100 * hit_rate)) +
                     "% of them finding anything: " + per_rank);
      f.set_remedy("Stop polling: wait for the requests (MPI_Waitany, MPI_Waitsome) or post the receives and do "
                   "independent work between fewer tests");
    } else if (category_name == "frequent_communication") {
      f.set_evidence(calls + " to " + where + " of " + report::Duration(std::llround(per_call)) +
                     " each on average (their own cost, without waiting): " + per_rank);
      f.set_remedy("Make fewer calls: aggregate the small messages, condense the loop's iterations, or use a "
                   "collective in place of many point-to-point calls");
    } else if (category_name == "large_messages") {
      const double mb_s = work > 0 ? static_cast<double>(s.bytes) / work * 1e3 : 0;  // bytes/ns -> MB/s
      char bw[64];
      std::snprintf(bw, sizeof bw, "%.0f MB/s", mb_s);
      f.set_evidence(calls + " to " + where + " move " + std::to_string(std::llround(bytes_per_call / 1024)) +
                     " KiB each, at " + bw + " (bytes over the calls' own time): " + per_rank);
      f.set_remedy("Overlap the transfers with computation (nonblocking calls), send less (compress, send only "
                   "what changed), or cut them into smaller messages for a balanced use of the network");
    } else {
      f.set_evidence(calls + " to " + where + " take " +
                     report::Duration(std::llround(work / static_cast<double>(ranks))) + " per rank of the run's " +
                     report::Duration(runtime) +
                     (serial_io ? ", most of it on " + RankList(f.ranks) +
                                      ": spread over all ranks, they would end " + report::Duration(saved) + " sooner"
                                : std::string()));
      f.set_remedy(category_name == "serial_io"
                       ? "Let every rank write its part (collective MPI-IO, MPI_File_write_all) instead of one "
                         "rank writing for all"
                       : "Use collective I/O (the _all calls) and larger requests, write less often, or overlap "
                         "I/O with computation (MPI_File_iwrite)");
    }
    out->push_back(f);
  }
}

// Computation in POSIX I/O by the samples (see findings.h).
void Findings::PosixIo(int64_t cluster, const Totals& t, int64_t runtime, const PathRecords& path,
                       const std::set<std::string>& named, std::vector<trace::FindingRecord>* out) const {
  const int64_t ranks = t.ranks();
  if (runtime <= 0 || ranks == 0) return;
  const double least = config_.threshold * static_cast<double>(runtime);
  for (const auto& [function, by_rank] : t.posix_io) {
    const std::string& name = Function(function);
    if (named.count(name)) continue;
    double total = 0;
    for (double x : by_rank) total += x;
    const double avg = total / static_cast<double>(ranks);
    double saving = avg;
    for (const trace::CpZeroingRecord& z : path.zeroings) {
      if (z.kind == "function" && z.has_fn() && z.fn == name) saving = std::min(saving, static_cast<double>(z.reduction));
    }
    if (saving <= 0 || saving < least) continue;
    const bool serial = Serial(by_rank, ranks);
    trace::FindingRecord f;
    f.set_category(serial ? "serial_io" : "io");
    const int64_t saved = std::llround(saving);
    f.set_saved(saved);
    f.set_severity(Ratio(saving, static_cast<double>(runtime)));
    f.set_wasted(Ratio(total, static_cast<double>(ranks) * static_cast<double>(runtime)));
    if (cluster != kNone) f.set_cluster(cluster);
    f.set_phases(t.phases);
    f.set_fn(name);
    f.set_causes({name});
    f.set_cause_ns({std::llround(total)});
    const std::vector<int64_t> heavy = Heaviest(by_rank);
    f.set_ranks(heavy);
    std::vector<int64_t> values;
    for (double x : by_rank) values.push_back(std::llround(x));
    f.set_rank_values(values);
    f.set_rank_label(report::ShortFunction(name) + " in read/write/fsync");
    f.set_evidence(report::ShortFunction(name) + " spends " + report::Duration(std::llround(total)) +
                   " of its computation in POSIX I/O (read, write, fsync: the samples' innermost frame), " +
                   report::Duration(std::llround(avg)) + " per rank of the run's " + report::Duration(runtime) +
                   (serial ? ", most of it on " + RankList(heavy) : std::string()) +
                   (saving < avg ? "; were the function instant, the run would be " + report::Duration(saved) +
                                       " shorter (the what-if on the graph)"
                                 : std::string()));
    f.set_remedy(serial ? "Let every rank write its part (MPI-IO, collective writes) instead of one rank doing "
                          "the I/O for all, or overlap it with the others' work; fsync less often"
                        : "Write less often or in larger blocks, use MPI-IO's collective calls, or overlap I/O with "
                          "computation (asynchronous I/O, a dedicated I/O rank)");
    out->push_back(f);
  }
}

// Critical-path findings (see findings.h), from the run's records.
void Findings::CriticalPath(const PathRecords& p, const std::function<int64_t(int32_t)>& callers,
                            const std::function<std::string(int32_t)>& dominant,
                            const std::function<std::vector<double>(int32_t)>& path_compute, int64_t runtime,
                            const std::set<int64_t>& covered, const std::map<std::string, int64_t>& covered_causes,
                            const std::set<int64_t>& named, std::vector<trace::FindingRecord>* out) const {
  if (!p.summary || runtime <= 0) return;
  const int64_t length = p.summary->length;
  const double least = config_.threshold * static_cast<double>(runtime);
  auto zeroing = [&](const std::string& kind, int64_t site, const std::string& fn) -> const trace::CpZeroingRecord* {
    for (const trace::CpZeroingRecord& z : p.zeroings) {
      if (z.kind != kind) continue;
      if (kind == "function" ? z.fn == fn : z.has_site() && z.site == site) return &z;
    }
    return nullptr;
  };
  auto site_profile = [&](int64_t site) -> const trace::CpProfileRecord* {
    for (const trace::CpProfileRecord& s : p.sites) {
      if (s.has_site() && s.site == site) return &s;
    }
    return nullptr;
  };
  for (const trace::CpZeroingRecord& z : p.zeroings) {
    if (z.kind != "mpi" || !z.has_site() || z.reduction <= 0 || static_cast<double>(z.reduction) < least) continue;
    if (named.count(z.site)) continue;  // a communication or I/O finding has it
    trace::FindingRecord f;
    f.set_category("communication_on_path");
    f.set_wasted(0);
    const std::string where = Locate(kNone, nullptr, z.reduction, runtime, static_cast<int32_t>(z.site),
                                     z.has_call() ? mpi::FindFunction(z.call) : -1, &f);
    const trace::CpProfileRecord* s = site_profile(z.site);
    std::string evidence = "the critical path (" + report::Duration(length) + ") spends " +
                           (s ? report::Duration(s->cp_mpi) : std::string("time")) + " in " + where +
                           " and the transfers it completes; were they instant, it would be " +
                           report::Duration(z.reduction) + " shorter (" + report::Duration(z.length) +
                           ", recomputed on the graph: another path may take over)";
    if (s && s->has_calls()) {
      evidence += "; " + std::to_string(s->calls) + (s->calls == 1 ? " call" : " calls") + " on all ranks";
    }
    f.set_evidence(evidence);
    f.set_remedy("Take this communication off the critical path: overlap it with independent computation "
                 "(nonblocking calls), send fewer and larger messages or less data, or place communicating "
                 "ranks closer together");
    out->push_back(f);
  }
  for (const trace::CpProfileRecord& s : p.sites) {
    if (!s.has_site() || covered.count(s.site)) continue;

    const int64_t ranks = callers(static_cast<int32_t>(s.site));
    if (ranks == 0) continue;
    const double average = static_cast<double>(s.time_compute) / static_cast<double>(ranks);
    const double excess = static_cast<double>(s.cp_compute) - average;
    const trace::CpZeroingRecord* z = zeroing("compute", s.site, "");
    const double saved = z ? std::min(excess, static_cast<double>(z->reduction)) : excess;
    if (saved < 0.5 || saved < least) continue;
    if (auto c = covered_causes.find(dominant(static_cast<int32_t>(s.site)));
        c != covered_causes.end() && static_cast<double>(c->second) >= saved) {
      continue;  // the imbalance or wait state that names its function tells as much
    }
    trace::FindingRecord f;
    f.set_category("critical_computation");
    f.set_wasted(0);
    const std::string where = Locate(kNone, nullptr, std::llround(saved), runtime, static_cast<int32_t>(s.site),
                                     s.has_call() ? mpi::FindFunction(s.call) : -1, &f);
    // The ranks the path computes it on: at least half as much as the most.
    const std::vector<double> on_path = path_compute(static_cast<int32_t>(s.site));
    const std::vector<int64_t> heavy = Heaviest(on_path);
    std::string ranks_text;
    if (!heavy.empty()) {
      f.set_ranks(heavy);
      std::vector<int64_t> values;
      for (double x : on_path) values.push_back(std::llround(x));
      f.set_rank_values(values);
      f.set_rank_label("computation on the critical path before " + f.call);
      ranks_text = ", most of it on " + RankList(heavy);
    }
    f.set_evidence("the critical path computes " + report::Duration(s.cp_compute) + " before calls to " + where +
                   ranks_text + ", an average rank " + report::Duration(std::llround(average)) +
                   ": the ranks on the path do more of it than the others" +
                   (z ? "; were it instant, the path would be " + report::Duration(z->reduction) + " shorter" : ""));
    f.set_remedy("Balance the computation before " + where + " over the ranks, or shorten it where the critical "
                 "path runs (rp-cpath shows the path's ranks); where ranks compute one after another, each "
                 "waiting for the message of the one before, split the work into pieces that flow through the "
                 "ranks together (pipelining)");
    out->push_back(f);
  }
  for (const trace::CpProfileRecord& fn : p.functions) {
    // Shares of computation: a function's time in MPI calls is waiting
    // and communication, the other findings'.
    if (!fn.has_fn() || fn.time_share <= 0 || length <= 0) continue;
    const double all = static_cast<double>(fn.time) / fn.time_share;
    const double compute_share = static_cast<double>(fn.time_compute) / all;
    const double path_share = static_cast<double>(fn.cp_compute) / static_cast<double>(length);
    if (compute_share < 0.10 || path_share >= 0.5 * compute_share) continue;
    const trace::CpZeroingRecord* z = zeroing("function", kNone, fn.fn);
    trace::FindingRecord f;
    f.set_category("off_path_hotspot");
    const int64_t saved = z ? z->reduction : 0;
    f.set_saved(saved);
    f.set_severity(static_cast<double>(saved) / static_cast<double>(runtime));
    f.set_fn(fn.fn);
    f.set_evidence(report::ShortFunction(fn.fn) + " computes " + report::Trim(report::Percent(compute_share)) +
                   " of all ranks' time but only " + report::Trim(report::Percent(path_share)) +
                   " of the critical path" +
                   (z ? "; were it instant, the run would be " + report::Duration(saved) + " shorter" : ""));
    f.set_remedy("Optimising " + report::ShortFunction(fn.fn) +
                 " will not shorten the run much: its time is hidden behind other ranks' work; look at the "
                 "critical path's functions first (rp-cpath)");
    out->push_back(f);
  }
}

}  // namespace rp::diagnose
