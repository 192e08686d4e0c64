#include "lib/cpath/records.h"

#include <algorithm>
#include <map>
#include <type_traits>
#include <utility>

namespace rp::cpath {
namespace {

using window::kNone;

void FillProfile(const SiteStats& s, int64_t length, int64_t total, trace::CpProfileRecord* p) {
  p->set_cp(s.cp());
  p->set_cp_compute(s.cp_compute);
  p->set_cp_mpi(s.cp_mpi);
  p->set_cp_share(Share(s.cp(), length));
  p->set_time(s.time());
  p->set_time_compute(s.time_compute);
  p->set_time_mpi(s.time_mpi);
  p->set_time_share(Share(s.time(), total));
  p->set_calls(s.calls);
}

// waits / (execution + computation), mpi-graph §5.2; absent when 0/0.
void SetImbalance(int64_t waits, int64_t execution, int64_t compute, trace::CpImbalanceRecord* r) {
  if (execution + compute > 0) r->set_imbalance(static_cast<double>(waits) / (execution + compute));
}

}  // namespace

const char* CallName(int32_t fn) { return fn >= 0 ? mpi::kFunctions[fn].name : "?"; }

RecordWriter::RecordWriter(const window::Dictionary& dict, trace::Writer& out) : out_(out) {
  for (const trace::SiteRecord& site : dict.sites) sites_[site.id] = site;
}

Status RecordWriter::WriteScope(const Scope& scope, int64_t phase, Span span, const char* algo,
                                const Problems& problems, bool ranks) {
  RP_RETURN_IF_ERROR(WriteSummary(scope, phase, span, algo, problems));
  RP_RETURN_IF_ERROR(WriteProfile(scope, phase));
  if (phase == kNone) RP_RETURN_IF_ERROR(WriteFunctionProfile(scope));
  return WriteImbalance(scope, phase, ranks);
}

Status RecordWriter::WriteSummary(const Scope& scope, int64_t phase, Span span, const char* algo,
                                  const Problems& problems) {
  using graph::SegmentKind;
  trace::CpSummaryRecord sum;
  if (phase != kNone) sum.set_phase(phase);
  sum.set_algo(algo);
  sum.set_length(scope.length);
  sum.set_run_time(span.end > span.start ? span.end - span.start : 0);
  sum.set_start(span.start);
  if (scope.last_rank >= 0) sum.set_end_rank(scope.last_rank);
  sum.set_compute(scope.by_kind[static_cast<int>(SegmentKind::kCompute)]);
  sum.set_mpi(scope.by_kind[static_cast<int>(SegmentKind::kMpi)]);
  sum.set_transfer(scope.by_kind[static_cast<int>(SegmentKind::kTransfer)]);
  sum.set_wait(scope.by_kind[static_cast<int>(SegmentKind::kWait)]);
  sum.set_rp(scope.by_kind[static_cast<int>(SegmentKind::kRp)]);
  sum.set_rp_all(scope.rp_all);
  sum.set_segments(scope.segments);
  for (const RankStats& r : scope.ranks) sum.mutable_rank_share().push_back(Share(r.cp, scope.length));
  if (phase == kNone) {
    sum.set_init(scope.init);
    sum.set_finalize(scope.finalize);
    sum.set_rp_setup(scope.rp_setup());
    sum.set_partial(problems.partial());
    sum.set_backward_edges(problems.graph.backward_edges);
    sum.set_cycle_edges(problems.graph.cycle_edges);
    sum.set_unmatched_sends(problems.unmatched_sends);
    sum.set_unmatched_receives(problems.unmatched_receives);
    sum.set_unresolved_receives(problems.unresolved_receives);
    sum.set_incomplete_ranks(problems.incomplete_ranks);
    sum.set_neighbour_collectives(problems.graph.neighbour_collectives);
  }
  return out_.Write(sum);
}

Status RecordWriter::WriteProfile(const Scope& scope, int64_t phase) {
  const int64_t total = scope.total_time();
  for (int32_t site : scope.ProfileOrder()) {
    const SiteStats& s = scope.sites.at(site);
    trace::CpProfileRecord p;
    if (phase != kNone) p.set_phase(phase);
    p.set_scope("site");
    if (site != kNone) p.set_site(site);
    DescribeSite(site, s.fn, &p);
    FillProfile(s, scope.length, total, &p);
    RP_RETURN_IF_ERROR(out_.Write(p));
  }
  return OkStatus();
}

// The same by function: the sites' functions from the site records.
Status RecordWriter::WriteFunctionProfile(const Scope& run) {
  std::map<std::string, SiteStats> functions;
  for (const auto& [site, s] : run.sites) {
    SiteStats& f = functions[FunctionOf(site)];
    f.cp_compute += s.cp_compute, f.cp_mpi += s.cp_mpi;
    f.time_compute += s.time_compute, f.time_mpi += s.time_mpi, f.calls += s.calls;
  }
  std::vector<std::pair<std::string, SiteStats>> order(functions.begin(), functions.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second.cp() > b.second.cp(); });
  const int64_t total = run.total_time();
  for (const auto& [fn, s] : order) {
    trace::CpProfileRecord p;
    p.set_scope("function");
    p.set_fn(fn);
    FillProfile(s, run.length, total, &p);
    RP_RETURN_IF_ERROR(out_.Write(p));
  }
  return OkStatus();
}

// Imbalance per call site, per process, for the program (mpi-graph §5.2).
Status RecordWriter::WriteImbalance(const Scope& scope, int64_t phase, bool ranks) {
  for (const auto& [site, s] : scope.sites) {
    if (s.fn < 0 && s.calls == 0) continue;
    // MPI_Init and MPI_Finalize are outside the application's time.
    const mpi::Category category = s.fn >= 0 ? mpi::kFunctions[s.fn].category : mpi::Category::kPcontrol;
    if (category == mpi::Category::kInit || category == mpi::Category::kFinalize) continue;
    trace::CpImbalanceRecord r;
    if (phase != kNone) r.set_phase(phase);
    r.set_scope("call");
    if (site != kNone) r.set_site(site);
    r.set_call(CallName(s.fn));
    const std::string fn = FunctionOf(site);
    if (fn != "?") r.set_fn(fn);
    r.set_wait_before(s.wait_before);
    r.set_wait_after(s.wait_after);
    r.set_execution(s.execution);
    SetImbalance(s.wait_before + s.wait_after, s.execution, 0, &r);
    RP_RETURN_IF_ERROR(out_.Write(r));
  }
  for (size_t rank = 0; ranks && rank < scope.ranks.size(); ++rank) {
    const RankStats& s = scope.ranks[rank];
    trace::CpImbalanceRecord r;
    if (phase != kNone) r.set_phase(phase);
    r.set_scope("process");
    r.set_rank(static_cast<int64_t>(rank));
    r.set_wait_before(s.wait_before);
    r.set_wait_after(s.wait_after);
    r.set_execution(s.execution);
    r.set_compute(s.compute);
    SetImbalance(s.wait_before + s.wait_after, s.execution, s.compute, &r);
    RP_RETURN_IF_ERROR(out_.Write(r));
  }
  const RankStats program = scope.program();
  trace::CpImbalanceRecord r;
  if (phase != kNone) r.set_phase(phase);
  r.set_scope("program");
  r.set_wait_before(program.wait_before);
  r.set_wait_after(program.wait_after);
  r.set_execution(program.execution);
  r.set_compute(program.compute);
  SetImbalance(program.wait_before + program.wait_after, program.execution, program.compute, &r);
  return out_.Write(r);
}

Status RecordWriter::WriteZeroings(const Scope& run, std::vector<graph::Zeroings::Result> results) {
  std::stable_sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.length < b.length; });
  for (const auto& z : results) {
    trace::CpZeroingRecord r;
    r.set_site(z.what.site);
    r.set_kind(z.what.compute ? "compute" : "mpi");
    auto s = run.sites.find(z.what.site);
    DescribeSite(z.what.site, s != run.sites.end() ? s->second.fn : -1, &r);
    r.set_length(z.length);
    r.set_reduction(run.length - z.length);
    RP_RETURN_IF_ERROR(out_.Write(r));
  }
  return OkStatus();
}

// Offline every site's share is known exactly, so appendix B's bucket
// search reduces to this selection (at most m sites pass).
Status RecordWriter::WriteTop(const Scope& run, int m) {
  if (m <= 0 || run.length <= 0) return OkStatus();
  int64_t order = 0;
  for (int32_t site : run.ProfileOrder()) {
    const SiteStats& s = run.sites.at(site);
    if (static_cast<double>(s.cp()) * m <= static_cast<double>(run.length)) continue;
    trace::CpTopRecord r;
    r.set_m(m);
    r.set_order(++order);
    r.set_site(site);
    DescribeSite(site, s.fn, &r);
    r.set_cp(s.cp());
    r.set_share(Share(s.cp(), run.length));
    RP_RETURN_IF_ERROR(out_.Write(r));
  }
  return OkStatus();
}

std::string RecordWriter::FunctionOf(int32_t site) const {
  auto it = sites_.find(site);
  return it != sites_.end() && it->second.has_fn() ? it->second.fn : "?";
}

template <typename R>
void RecordWriter::DescribeSite(int32_t site, int32_t fn, R* r) const {
  if (fn >= 0) r->set_call(CallName(fn));
  auto it = sites_.find(site);
  if (it == sites_.end()) return;
  if (it->second.has_fn()) r->set_fn(it->second.fn);
  if constexpr (std::is_same_v<R, trace::CpProfileRecord>) {
    if (it->second.has_file()) r->set_file(it->second.file);
    if (it->second.has_line()) r->set_line(it->second.line);
  }
}

}  // namespace rp::cpath
