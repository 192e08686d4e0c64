#include "lib/cpath/records.h"

#include <algorithm>
#include <map>
#include <tuple>
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

RecordWriter::RecordWriter(const window::Dictionary& dict, trace::Writer& out) : frames_(dict.sites), out_(out) {
  for (const trace::SiteRecord& site : dict.sites) sites_[site.id] = site;
}

Status RecordWriter::WriteSegment(const graph::Segment& s) {
  trace::CpSegmentRecord r;
  r.set_rank(s.rank);
  r.set_t0(s.t0);
  r.set_t1(s.t1);
  r.set_kind(std::string(graph::KindName(s.kind)));
  r.set_length(s.length);
  if (s.site != kNone) r.set_site(s.site);
  if (s.fn >= 0) r.set_call(CallName(s.fn));
  if (s.peer != kNone) r.set_peer(s.peer);
  if (s.phase != kNone) r.set_phase(s.phase);
  return out_.Write(r);
}

Status RecordWriter::WriteScope(const Scope& scope, int64_t phase, Span span, const char* algo,
                                const Problems& problems, bool ranks, const NamedCode* code) {
  RP_RETURN_IF_ERROR(WriteSummary(scope, phase, span, algo, problems, code));
  RP_RETURN_IF_ERROR(WriteProfile(scope, phase));
  if (code != nullptr) RP_RETURN_IF_ERROR(WriteCodeProfile(scope, *code));
  return WriteImbalance(scope, phase, ranks);
}

Status RecordWriter::WriteSummary(const Scope& scope, int64_t phase, Span span, const char* algo,
                                  const Problems& problems, const NamedCode* code) {
  using graph::SegmentKind;
  trace::CpSummaryRecord sum;
  if (phase != kNone) sum.set_phase(phase);
  sum.set_algo(algo);
  sum.set_length(scope.length);
  sum.set_run_time(span.end > span.start ? span.end - span.start : 0);
  if (scope.regions > 0) sum.set_regions(scope.regions);
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
  if (code != nullptr) {
    const profile::Counts& c = code->counts;
    sum.set_samples(c.samples);
    sum.set_samples_outside(c.outside);
    sum.set_samples_unweighted(c.unweighted);
    sum.set_undefined_frames(code->undefined_frames);
    sum.set_unsampled_ranks(c.unsampled_ranks);
    sum.set_compute_sampled(code->cp_by_method[static_cast<int>(profile::Method::kSampled)]);
    sum.set_compute_nearest(code->cp_by_method[static_cast<int>(profile::Method::kNearest)]);
    sum.set_compute_by_site(code->cp_by_method[static_cast<int>(profile::Method::kCallSite)]);
  } else if (scope.sampled) {
    sum.set_samples(scope.sampled->samples);
    sum.set_compute_sampled(scope.sampled->compute_sampled);
    sum.set_compute_nearest(scope.sampled->compute_nearest);
    sum.set_compute_by_site(scope.sampled->compute_by_site);
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

namespace {

// Largest on the path first, then largest over all ranks; ties by name.
template <typename T, typename Key>
void SortRows(std::vector<T>* rows, Key key) {
  std::sort(rows->begin(), rows->end(), [&](const T& a, const T& b) {
    const SiteStats& x = a.stats;
    const SiteStats& y = b.stats;
    if (x.cp() != y.cp()) return x.cp() > y.cp();
    if (x.time() != y.time()) return x.time() > y.time();
    return key(a) < key(b);
  });
}

}  // namespace

std::vector<RecordWriter::Named> RecordWriter::Functions(const Scope& run, const NamedCode& code,
                                                         bool by_line) const {
  std::map<std::tuple<std::string, std::string, int64_t>, SiteStats> named;
  auto entry = [&](const std::string& fn, const std::string& file, int64_t line) -> SiteStats& {
    return by_line ? named[{fn, file, line}] : named[{fn, "", 0}];
  };
  for (const auto& [key, costs] : code.lines) {
    SiteStats& f = entry(std::get<0>(key), std::get<1>(key), std::get<2>(key));
    f.cp_compute += costs.on_path;
    f.time_compute += costs.all;
  }
  // MPI calls count for the function (and line) that makes them.
  for (const auto& [site, s] : run.sites) {
    const profile::Frame* frame = site != kNone ? frames_.Find(site) : nullptr;
    SiteStats& f = frame != nullptr ? entry(frame->fn.empty() ? "?" : frame->fn, frame->file, frame->line)
                                    : entry("?", "", 0);
    f.cp_mpi += s.cp_mpi;
    f.time_mpi += s.time_mpi;
    f.calls += s.calls;
  }
  std::vector<Named> out;
  for (const auto& [key, stats] : named) out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), stats});
  SortRows(&out, [](const Named& n) { return std::tie(n.fn, n.file, n.line); });
  return out;
}

Status RecordWriter::WriteFunctions(const Scope& run,
                                    const std::map<std::string, std::pair<int64_t, int64_t>>& computation) {
  std::map<std::string, SiteStats> named;
  for (const auto& [fn, ns] : computation) {
    SiteStats& f = named[fn];
    f.cp_compute += ns.first;
    f.time_compute += ns.second;
  }
  for (const auto& [site, s] : run.sites) {
    SiteStats& f = named[site != kNone ? FunctionOf(site) : "?"];
    f.cp_mpi += s.cp_mpi;
    f.time_mpi += s.time_mpi;
    f.calls += s.calls;
  }
  std::vector<Named> rows;
  for (const auto& [fn, stats] : named) rows.push_back({fn, "", 0, stats});
  return WriteNamed(run, std::move(rows), false);
}

Status RecordWriter::WriteNamed(const Scope& run, std::vector<Named> rows, bool by_line) {
  SortRows(&rows, [](const Named& n) { return std::tie(n.fn, n.file, n.line); });
  const int64_t total = run.total_time();
  for (const Named& n : rows) {
    trace::CpProfileRecord p;
    p.set_scope(by_line ? "line" : "function");
    p.set_fn(n.fn);
    if (by_line && !n.file.empty()) p.set_file(n.file);
    if (by_line && n.line > 0) p.set_line(n.line);
    FillProfile(n.stats, run.length, total, &p);
    RP_RETURN_IF_ERROR(out_.Write(p));
  }
  return OkStatus();
}

// By function, by source line and, with samples, by calling context: the
// computation lib/profile attributes, and the MPI calls where they are made.
Status RecordWriter::WriteCodeProfile(const Scope& run, const NamedCode& code) {
  for (bool by_line : {false, true}) RP_RETURN_IF_ERROR(WriteNamed(run, Functions(run, code, by_line), by_line));
  if (!code.sampled) return OkStatus();
  return WriteContexts(run, code);
}

Status RecordWriter::WriteContexts(const Scope& run, const profile::ContextTree& tree,
                                   const std::vector<Charged>& charged) {
  NamedCode code;
  for (const Charged& ch : charged) {
    NamedCode::Context& c = code.contexts[{tree.functions()[ch.function], tree.Path(ch.caller)}];
    if (c.names.empty()) c.names = tree.FunctionPath(ch.caller, ch.function);
    c.costs.on_path += ch.on_path;
    c.costs.all += ch.all;
  }
  return WriteContexts(run, code);
}

Status RecordWriter::WriteContexts(const Scope& run, const NamedCode& code) {
  const int64_t total = run.total_time();
  // A function in its calling context: its caller's call path and the function.
  struct Context {
    const std::pair<std::string, std::vector<int64_t>>* key;
    const NamedCode::Context* context;
    SiteStats stats;
  };
  std::vector<Context> rows;
  for (const auto& [key, context] : code.contexts) {
    SiteStats stats;
    stats.cp_compute = context.costs.on_path;
    stats.time_compute = context.costs.all;
    rows.push_back({&key, &context, stats});
  }
  // Ties by function name, then call path: what they are, not the order they were met in.
  SortRows(&rows, [](const Context& c) { return std::tie(c.key->first, c.key->second); });
  for (const Context& c : rows) {
    trace::CpProfileRecord p;
    p.set_scope("context");
    p.set_fn(c.key->first);
    p.set_context(c.key->second);
    p.set_path(c.context->names);
    FillProfile(c.stats, run.length, total, &p);
    p.clear_calls();
    p.clear_cp_mpi();
    p.clear_time_mpi();
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

Status RecordWriter::WriteZeroings(const Scope& run, std::vector<graph::Zeroings::Result> results,
                                   const CodeProfile& code) {
  // Without samples a function's share is its call sites' computation,
  // which the site what-ifs already show.
  static const std::vector<std::string> kNone;
  return WriteZeroings(run, std::move(results), code.sampled() ? code.tree().functions() : kNone);
}

Status RecordWriter::WriteZeroings(const Scope& run, std::vector<graph::Zeroings::Result> results,
                                   const std::vector<std::string>& procedures) {
  // Shortest first; on a tie sites (in site order) before functions, those by name.
  auto key = [&](const graph::Zeroings::Result& z) {
    const bool procedure = z.procedure >= 0;
    static const std::string kNoName;
    const std::string& name =
        procedure && static_cast<size_t>(z.procedure) < procedures.size() ? procedures[z.procedure] : kNoName;
    return std::tie(z.length, procedure, name);
  };
  std::stable_sort(results.begin(), results.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  for (const auto& z : results) {
    trace::CpZeroingRecord r;
    if (z.procedure >= 0) {
      if (static_cast<size_t>(z.procedure) >= procedures.size()) continue;
      r.set_kind("function");
      r.set_fn(procedures[z.procedure]);
      r.set_length(z.length);
      r.set_reduction(run.length - z.length);
      RP_RETURN_IF_ERROR(out_.Write(r));
      continue;
    }
    r.set_site(z.site);
    r.set_kind(z.compute ? "compute" : "mpi");
    auto s = run.sites.find(z.site);
    DescribeSite(z.site, s != run.sites.end() ? s->second.fn : -1, &r);
    r.set_length(z.length);
    r.set_reduction(run.length - z.length);
    RP_RETURN_IF_ERROR(out_.Write(r));
  }
  return OkStatus();
}

// Offline every site's share is known exactly, so appendix B's bucket
// search reduces to this selection (at most m sites pass).
Status RecordWriter::WriteTop(const Scope& run, int m, const NamedCode& code) {
  if (m <= 0 || run.length <= 0) return OkStatus();
  auto passes = [&](const SiteStats& s) { return static_cast<double>(s.cp()) * m > static_cast<double>(run.length); };
  int64_t order = 0;
  for (int32_t site : run.ProfileOrder()) {
    const SiteStats& s = run.sites.at(site);
    if (!passes(s)) continue;
    trace::CpTopRecord r;
    r.set_m(m);
    r.set_order(++order);
    r.set_scope("site");
    r.set_site(site);
    DescribeSite(site, s.fn, &r);
    r.set_cp(s.cp());
    r.set_share(Share(s.cp(), run.length));
    RP_RETURN_IF_ERROR(out_.Write(r));
  }
  order = 0;
  for (const Named& n : Functions(run, code, false)) {
    if (!passes(n.stats)) continue;
    trace::CpTopRecord r;
    r.set_m(m);
    r.set_order(++order);
    r.set_scope("function");
    r.set_fn(n.fn);
    r.set_cp(n.stats.cp());
    r.set_share(Share(n.stats.cp(), run.length));
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
