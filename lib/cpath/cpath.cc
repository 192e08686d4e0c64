#include "lib/cpath/cpath.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "lib/base/version.h"
#include "lib/graph/alternatives.h"
#include "lib/graph/imbalance.h"
#include "lib/graph/path.h"
#include "lib/trace/codec.h"
#include "lib/trace/input_set.h"
#include "lib/window/window.h"

namespace rp::cpath {
namespace {

using graph::Segment;
using graph::SegmentKind;
using window::kNone;

// ------------------------------------------------------------ statistics ---

struct SiteStats {
  int64_t cp_compute = 0, cp_mpi = 0;
  int64_t time_compute = 0, time_mpi = 0, calls = 0;
  int64_t wait_before = 0, wait_after = 0, execution = 0;
  int32_t fn = -1;  // the MPI function called there
  int64_t cp() const { return cp_compute + cp_mpi; }
  int64_t time() const { return time_compute + time_mpi; }
};

struct RankStats {
  int64_t cp = 0, compute = 0, wait_before = 0, wait_after = 0, execution = 0;
};

// What rp-cpath reports for the whole run or one phase.
struct Scope {
  int64_t start = INT64_MAX, end = INT64_MIN;  // of its calls
  int64_t length = 0, segments = 0;
  int64_t by_kind[4] = {};
  int32_t last_rank = -1;  // where its part of the path ends
  std::map<int32_t, SiteStats> sites;
  std::vector<RankStats> ranks;

  RankStats& Rank(int32_t rank) {
    if (static_cast<size_t>(rank) >= ranks.size()) ranks.resize(rank + 1);
    return ranks[rank];
  }
  void AddSegment(const Segment& s) {
    length += s.length;
    ++segments;
    by_kind[static_cast<int>(s.kind)] += s.kind == SegmentKind::kWait ? s.t1 - s.t0 : s.length;
    last_rank = s.rank;
    Rank(s.rank).cp += s.length;
    SiteStats& site = sites[s.site];
    if (site.fn < 0) site.fn = s.fn;
    if (s.kind == SegmentKind::kCompute) site.cp_compute += s.length;
    else site.cp_mpi += s.length;
  }
  void AddCall(const window::Event& e, int64_t compute_before, const graph::CallTimes& t) {
    start = std::min(start, e.t0 - compute_before);
    end = std::max(end, e.t1);
    SiteStats& site = sites[e.site];
    if (site.fn < 0) site.fn = e.fn;
    site.time_compute += compute_before;
    site.time_mpi += e.t1 - e.t0;
    ++site.calls;
    site.wait_before += t.wait_before;
    site.wait_after += t.wait_after;
    site.execution += t.execution;
    RankStats& rank = Rank(e.rank);
    rank.compute += compute_before;
    rank.wait_before += t.wait_before;
    rank.wait_after += t.wait_after;
    rank.execution += t.execution;
  }
  // Every rank's times added up: the program (mpi-graph §5.2).
  RankStats program() const {
    RankStats p;
    for (const RankStats& r : ranks) {
      p.compute += r.compute, p.wait_before += r.wait_before;
      p.wait_after += r.wait_after, p.execution += r.execution;
    }
    return p;
  }
  int64_t total_time() const {
    int64_t total = 0;
    for (const auto& [id, s] : sites) total += s.time();
    return total;
  }
};

// What the graph could not model, for the summary and the warnings.
struct Problems {
  graph::GraphProblems graph;
  int64_t unmatched_sends = 0, unmatched_receives = 0, unresolved_receives = 0;
  int64_t incomplete_ranks = 0;
  std::vector<std::string> examples;
  bool partial() const {
    return graph.backward_edges || graph.cycle_edges || unmatched_sends || unmatched_receives ||
           unresolved_receives || incomplete_ranks;
  }
};

double Share(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / whole : 0.0; }

const char* CallName(int32_t fn) { return fn >= 0 ? mpi::kFunctions[fn].name : "?"; }

// ------------------------------------------------------------- windows ---

// One window with its graph: built by any thread, used in order.
struct Prepared {
  window::Window window;
  match::Matching matching;
  graph::Graph graph;
  std::vector<graph::CallTimes> times;

  void Build(const window::Dictionary& dict) {
    matching = match::Match(window, dict);
    graph = graph::Graph(window, matching);
    times = graph::SplitCalls(graph, matching);
  }
};

// Reads windows and builds their graphs, on `jobs` threads when jobs > 1;
// hands them out in input order either way.
class WindowSource {
 public:
  WindowSource(window::WindowReader& reader, int jobs) : reader_(reader), jobs_(std::max(jobs, 1)) {}
  ~WindowSource() { Stop(); }

  Expected<std::unique_ptr<Prepared>> Next() {
    if (jobs_ == 1) {
      auto p = Take();
      RP_ASSIGN_OR_RETURN(bool more, reader_.Next(&p->window));
      if (!more) return std::unique_ptr<Prepared>();
      p->Build(reader_.dictionary());
      return p;
    }
    if (threads_.empty()) Begin();
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return (!done_.empty() && done_.begin()->first == next_out_) || (eof_ && next_out_ == read_); });
    if (!status_.ok() && next_out_ == read_) return status_;
    if (done_.empty() || done_.begin()->first != next_out_) return std::unique_ptr<Prepared>();
    auto p = std::move(done_.begin()->second);
    done_.erase(done_.begin());
    ++next_out_;
    changed_.notify_all();
    return p;
  }

  // A window done with, whose buffers the next one reuses: a window's text
  // and arrays grow to their size once, not on every window.
  void Recycle(std::unique_ptr<Prepared> p) {
    if (!p) return;
    std::lock_guard lock(mu_);
    if (spare_.size() < Limit()) spare_.push_back(std::move(p));
  }

 private:
  std::unique_ptr<Prepared> Take() {
    std::lock_guard lock(mu_);
    if (spare_.empty()) return std::make_unique<Prepared>();
    auto p = std::move(spare_.back());
    spare_.pop_back();
    return p;
  }
  void Begin() {
    threads_.emplace_back([this] { ReadAll(); });
    for (int i = 0; i < jobs_; ++i) threads_.emplace_back([this] { BuildAll(); });
  }
  void Stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  // Keeps a few windows per builder in flight: memory stays bounded.
  size_t Limit() const { return 2 * static_cast<size_t>(jobs_) + 2; }

  void ReadAll() {
    for (;;) {
      auto p = Take();
      auto more = reader_.Next(&p->window);
      std::unique_lock lock(mu_);
      if (!more.ok() || !*more) {
        if (!more.ok()) status_ = more.status();
        eof_ = true;
        changed_.notify_all();
        return;
      }
      changed_.wait(lock, [&] { return stop_ || read_ - next_out_ < Limit(); });
      if (stop_) return;
      todo_.emplace_back(read_++, std::move(p));
      changed_.notify_all();
    }
  }
  void BuildAll() {
    for (;;) {
      std::unique_lock lock(mu_);
      changed_.wait(lock, [&] { return stop_ || !todo_.empty() || eof_; });
      if (stop_ || (todo_.empty() && eof_)) return;
      auto [index, p] = std::move(todo_.front());
      todo_.pop_front();
      lock.unlock();
      p->Build(reader_.dictionary());
      lock.lock();
      done_.emplace(index, std::move(p));
      changed_.notify_all();
    }
  }

  window::WindowReader& reader_;
  const int jobs_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::pair<uint64_t, std::unique_ptr<Prepared>>> todo_;
  std::map<uint64_t, std::unique_ptr<Prepared>> done_;
  std::vector<std::unique_ptr<Prepared>> spare_;
  uint64_t read_ = 0, next_out_ = 0;
  bool eof_ = false, stop_ = false;
  Status status_;
};

// ------------------------------------------------------------ analysis ---

class Analysis {
 public:
  Analysis(const Options& options, const window::Dictionary& dict, trace::Writer* writer)
      : options_(options), dict_(dict), out_(writer) {
    std::set<std::string> hosts;
    for (const trace::SiteRecord& site : dict.sites) sites_[site.id] = site;
    for (const trace::RankRecord& r : dict.rank_records) {
      if (r.has_complete() && !r.complete) ++problems_.incomplete_ranks;
      if (r.has_host()) hosts.insert(r.host);
    }
    hosts_ = hosts.size();
  }

  // Takes *p when it must keep the window (--algo replay).
  Status AddWindow(std::unique_ptr<Prepared>* window) {
    std::unique_ptr<Prepared>& p = *window;
    const window::Window& w = p->window;
    const graph::Graph& g = p->graph;
    problems_.graph.Add(g.problems());
    problems_.unmatched_sends += p->matching.unmatched_sends;
    problems_.unmatched_receives += p->matching.unmatched_receives;
    problems_.unresolved_receives += p->matching.unresolved_receives;
    for (const std::string& e : p->matching.examples) {
      if (problems_.examples.size() < 3) problems_.examples.push_back(e);
    }
    if (!started_ && !w.events.empty()) {
      started_ = true;
      run_start_ = g.earliest_entry();
      heuristic_ = std::make_unique<graph::TopologicalHeuristic>(run_start_);
    }
    CountCalls(*p);
    if (options_.passthrough && !options_.text) {
      for (const window::WindowRecord& r : w.records) RP_RETURN_IF_ERROR(out_->WriteRaw(w.line(r)));
    }
    for (const window::WindowRecord& r : w.records) {
      if (r.type != trace::RecordType::kPhase) continue;
      RP_RETURN_IF_ERROR(decoder_.DecodeCopy(w.line(r), &record_));
      phase_times_[record_.phase.id] = {record_.phase.t0, record_.phase.t1};
    }
    decided_.clear();
    switch (options_.algo) {
      case Algo::kExact:
        if (options_.zeroing) zeroings_.Add(g, cp_);
        cp_.Add(g, &decided_);
        break;
      case Algo::kHeuristic:
        if (started_) heuristic_->AddWindow(g, &decided_);
        break;
      case Algo::kReplay:
        kept_.push_back(std::move(p));  // replay walks back over every window at the end
        break;
    }
    RP_RETURN_IF_ERROR(Decided());
    // Phases this window closed are complete once the path has left them.
    if (w.ends_with_sync && max_phase_ != kNone) complete_below_ = max_phase_ + 1;
    return WriteFinishedPhases(false);
  }

  Status Finish() {
    decided_.clear();
    switch (options_.algo) {
      case Algo::kExact:
        cp_.Finish(&decided_);
        break;
      case Algo::kHeuristic:
        if (started_) heuristic_->Finish(&decided_);
        break;
      case Algo::kReplay: {
        std::vector<const graph::Graph*> graphs;
        for (const auto& p : kept_) graphs.push_back(&p->graph);
        decided_ = graph::BackwardReplay(graphs, run_start_);
        break;
      }
    }
    RP_RETURN_IF_ERROR(Decided());
    RP_RETURN_IF_ERROR(WriteFinishedPhases(true));
    Warn();
    if (options_.text) return out_->WriteText(TextReport());
    RP_RETURN_IF_ERROR(WriteScope(run_, kNone, true));
    if (options_.algo == Algo::kExact && options_.zeroing) RP_RETURN_IF_ERROR(WriteZeroings());
    return WriteTop();
  }

  bool any_calls() const { return started_; }

 private:
  // Every call's time and where it went, for the profile's total column and
  // the imbalance metrics.
  void CountCalls(const Prepared& p) {
    const window::Window& w = p.window;
    if (last_exit_.size() < w.by_rank.size()) last_exit_.resize(w.by_rank.size(), INT64_MIN);
    for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
      for (uint32_t e : w.by_rank[rank]) {
        const window::Event& ev = w.events[e];
        int64_t compute = p.graph.compute(e);
        if (p.graph.previous(graph::Entry(e)) == graph::kNoNode) {
          compute = std::max<int64_t>(ev.t0 - (last_exit_[rank] != INT64_MIN ? last_exit_[rank] : run_start_), 0);
        }
        run_.AddCall(ev, compute, p.times[e]);
        if (ev.phase != kNone && options_.phases) {
          phases_[ev.phase].AddCall(ev, compute, p.times[e]);
          max_phase_ = std::max<int64_t>(max_phase_ == kNone ? ev.phase : max_phase_, ev.phase);
        }
      }
      if (!w.by_rank[rank].empty()) last_exit_[rank] = w.events[w.by_rank[rank].back()].t1;
    }
  }

  // Writes and counts the segments decided so far.
  Status Decided() {
    for (const Segment& s : decided_) {
      run_.AddSegment(s);
      if (s.phase != kNone && options_.phases) {
        phases_[s.phase].AddSegment(s);
        path_phase_ = std::max<int64_t>(path_phase_, s.phase);
      }
      if (options_.text) continue;
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
      RP_RETURN_IF_ERROR(out_->Write(r));
    }
    return OkStatus();
  }

  Status WriteFinishedPhases(bool all) {
    while (!phases_.empty()) {
      auto it = phases_.begin();
      if (!all && (it->first >= complete_below_ || it->first >= path_phase_)) break;
      if (!options_.text) RP_RETURN_IF_ERROR(WriteScope(it->second, it->first, options_.phase_ranks));
      phase_times_.erase(it->first);
      phases_.erase(it);
    }
    return OkStatus();
  }

  const char* AlgoName() const {
    switch (options_.algo) {
      case Algo::kExact: return "exact";
      case Algo::kReplay: return "replay";
      case Algo::kHeuristic: return "heuristic";
    }
    return "?";
  }

  // cp_summary, cp_profile and cp_imbalance of the run (phase kNone) or a phase.
  Status WriteScope(const Scope& scope, int64_t phase, bool ranks) {
    const bool run = phase == kNone;
    int64_t start = scope.start, end = scope.end;
    if (!run) {
      auto times = phase_times_.find(phase);
      if (times != phase_times_.end()) start = times->second.first, end = times->second.second;
    } else {
      start = run_start_;
    }
    trace::CpSummaryRecord sum;
    if (!run) sum.set_phase(phase);
    sum.set_algo(AlgoName());
    sum.set_length(scope.length);
    sum.set_run_time(end > start ? end - start : 0);
    sum.set_start(start);
    if (scope.last_rank >= 0) sum.set_end_rank(scope.last_rank);
    sum.set_compute(scope.by_kind[static_cast<int>(SegmentKind::kCompute)]);
    sum.set_mpi(scope.by_kind[static_cast<int>(SegmentKind::kMpi)]);
    sum.set_transfer(scope.by_kind[static_cast<int>(SegmentKind::kTransfer)]);
    sum.set_wait(scope.by_kind[static_cast<int>(SegmentKind::kWait)]);
    sum.set_segments(scope.segments);
    for (const RankStats& r : scope.ranks) sum.mutable_rank_share().push_back(Share(r.cp, scope.length));
    if (run) {
      sum.set_partial(problems_.partial());
      sum.set_backward_edges(problems_.graph.backward_edges);
      sum.set_cycle_edges(problems_.graph.cycle_edges);
      sum.set_unmatched_sends(problems_.unmatched_sends);
      sum.set_unmatched_receives(problems_.unmatched_receives);
      sum.set_unresolved_receives(problems_.unresolved_receives);
      sum.set_incomplete_ranks(problems_.incomplete_ranks);
      sum.set_neighbour_collectives(problems_.graph.neighbour_collectives);
    }
    RP_RETURN_IF_ERROR(out_->Write(sum));

    const int64_t total = scope.total_time();
    for (int32_t site : ProfileOrder(scope)) {
      const SiteStats& s = scope.sites.at(site);
      trace::CpProfileRecord p;
      if (!run) p.set_phase(phase);
      p.set_scope("site");
      if (site != kNone) p.set_site(site);
      DescribeSite(site, s.fn, &p);
      FillProfile(s, scope.length, total, &p);
      RP_RETURN_IF_ERROR(out_->Write(p));
    }
    if (run) {
      // The same by function: the sites' functions from the site records.
      std::map<std::string, SiteStats> functions;
      for (const auto& [site, s] : scope.sites) {
        SiteStats& f = functions[FunctionOf(site)];
        f.cp_compute += s.cp_compute, f.cp_mpi += s.cp_mpi;
        f.time_compute += s.time_compute, f.time_mpi += s.time_mpi, f.calls += s.calls;
      }
      std::vector<std::pair<std::string, SiteStats>> order(functions.begin(), functions.end());
      std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second.cp() > b.second.cp(); });
      for (const auto& [fn, s] : order) {
        trace::CpProfileRecord p;
        p.set_scope("function");
        p.set_fn(fn);
        FillProfile(s, scope.length, total, &p);
        RP_RETURN_IF_ERROR(out_->Write(p));
      }
    }

    // Imbalance per call site, per process, for the program (mpi-graph §5.2).
    auto imbalance = [](int64_t waits, int64_t execution, int64_t compute, trace::CpImbalanceRecord* r) {
      if (execution + compute > 0) r->set_imbalance(static_cast<double>(waits) / (execution + compute));
    };
    for (const auto& [site, s] : scope.sites) {
      if (s.fn < 0 && s.calls == 0) continue;
      trace::CpImbalanceRecord r;
      if (!run) r.set_phase(phase);
      r.set_scope("call");
      if (site != kNone) r.set_site(site);
      r.set_call(CallName(s.fn));
      const std::string fn = FunctionOf(site);
      if (fn != "?") r.set_fn(fn);
      r.set_wait_before(s.wait_before);
      r.set_wait_after(s.wait_after);
      r.set_execution(s.execution);
      imbalance(s.wait_before + s.wait_after, s.execution, 0, &r);
      RP_RETURN_IF_ERROR(out_->Write(r));
    }
    for (size_t rank = 0; ranks && rank < scope.ranks.size(); ++rank) {
      const RankStats& s = scope.ranks[rank];
      trace::CpImbalanceRecord r;
      if (!run) r.set_phase(phase);
      r.set_scope("process");
      r.set_rank(static_cast<int64_t>(rank));
      r.set_wait_before(s.wait_before);
      r.set_wait_after(s.wait_after);
      r.set_execution(s.execution);
      r.set_compute(s.compute);
      imbalance(s.wait_before + s.wait_after, s.execution, s.compute, &r);
      RP_RETURN_IF_ERROR(out_->Write(r));
    }
    const RankStats program = scope.program();
    trace::CpImbalanceRecord r;
    if (!run) r.set_phase(phase);
    r.set_scope("program");
    r.set_wait_before(program.wait_before);
    r.set_wait_after(program.wait_after);
    r.set_execution(program.execution);
    r.set_compute(program.compute);
    imbalance(program.wait_before + program.wait_after, program.execution, program.compute, &r);
    return out_->Write(r);
  }

  // Sites by critical-path time, then by id.
  static std::vector<int32_t> ProfileOrder(const Scope& scope) {
    std::vector<int32_t> order;
    for (const auto& [site, s] : scope.sites) order.push_back(site);
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return scope.sites.at(a).cp() > scope.sites.at(b).cp(); });
    return order;
  }

  static void FillProfile(const SiteStats& s, int64_t length, int64_t total, trace::CpProfileRecord* p) {
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

  std::string FunctionOf(int32_t site) const {
    auto it = sites_.find(site);
    return it != sites_.end() && it->second.has_fn() ? it->second.fn : "?";
  }

  template <typename R>
  void DescribeSite(int32_t site, int32_t fn, R* r) const {
    if (fn >= 0) r->set_call(CallName(fn));
    auto it = sites_.find(site);
    if (it == sites_.end()) return;
    if (it->second.has_fn()) r->set_fn(it->second.fn);
    if constexpr (std::is_same_v<R, trace::CpProfileRecord>) {
      if (it->second.has_file()) r->set_file(it->second.file);
      if (it->second.has_line()) r->set_line(it->second.line);
    }
  }

  // Where a site is, for the text report: "main halo.c:41".
  std::string Where(int32_t site) const {
    auto it = sites_.find(site);
    if (it == sites_.end()) return site == kNone ? "(no site)" : "site " + std::to_string(site);
    std::string where = it->second.has_fn() ? it->second.fn : "?";
    if (it->second.has_file()) {
      const std::string& file = it->second.file;
      where += " " + file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
      if (it->second.has_line()) where += ":" + std::to_string(it->second.line);
    }
    return where;
  }

  Status WriteZeroings() {
    for (const auto& z : ZeroingOrder()) {
      trace::CpZeroingRecord r;
      r.set_site(z.what.site);
      r.set_kind(z.what.compute ? "compute" : "mpi");
      auto s = run_.sites.find(z.what.site);
      DescribeSite(z.what.site, s != run_.sites.end() ? s->second.fn : -1, &r);
      r.set_length(z.length);
      r.set_reduction(run_.length - z.length);
      RP_RETURN_IF_ERROR(out_->Write(r));
    }
    return OkStatus();
  }

  // Largest reduction first.
  std::vector<graph::Zeroings::Result> ZeroingOrder() const {
    std::vector<graph::Zeroings::Result> results = zeroings_.Results();
    std::stable_sort(results.begin(), results.end(),
                     [](const auto& a, const auto& b) { return a.length < b.length; });
    return results;
  }

  // Appendix B: the items whose share of the critical path exceeds 1/m (at
  // most m). Offline every site's share is known exactly, so the paper's
  // bucket search reduces to this selection.
  std::vector<int32_t> Top() const {
    std::vector<int32_t> top;
    if (options_.top <= 0 || run_.length <= 0) return top;
    for (int32_t site : ProfileOrder(run_)) {
      if (static_cast<double>(run_.sites.at(site).cp()) * options_.top > static_cast<double>(run_.length)) {
        top.push_back(site);
      }
    }
    return top;
  }

  Status WriteTop() {
    int64_t order = 0;
    for (int32_t site : Top()) {
      const SiteStats& s = run_.sites.at(site);
      trace::CpTopRecord r;
      r.set_m(options_.top);
      r.set_order(++order);
      r.set_site(site);
      DescribeSite(site, s.fn, &r);
      r.set_cp(s.cp());
      r.set_share(Share(s.cp(), run_.length));
      RP_RETURN_IF_ERROR(out_->Write(r));
    }
    return OkStatus();
  }

  void Warn() const {
    const Problems& p = problems_;
    if (p.graph.backward_edges > 0) {
      spdlog::warn("{} dependencies go back in time (a receive ends before its send began): the clocks are "
                   "not synchronized; run rp-clocksync first. The path misses them (partial).",
                   p.graph.backward_edges);
    }
    if (p.graph.cycle_edges > 0) {
      spdlog::warn("{} dependencies dropped to break cycles (inconsistent times; rp-clocksync repairs them)",
                   p.graph.cycle_edges);
    }
    if (p.unmatched_sends + p.unmatched_receives + p.unresolved_receives > 0) {
      spdlog::warn("{} sends and {} receives without a partner, {} wildcard receives never resolved: their "
                   "dependencies are missing (partial){}{}",
                   p.unmatched_sends, p.unmatched_receives, p.unresolved_receives,
                   p.examples.empty() ? "" : "; e.g. ", p.examples.empty() ? "" : p.examples.front());
    }
    if (p.incomplete_ranks > 0) {
      spdlog::warn("{} ranks' data ends before MPI_Finalize: the path covers what they recorded (partial)",
                   p.incomplete_ranks);
    }
    if (p.graph.neighbour_collectives > 0) {
      spdlog::info("{} neighbourhood collectives modelled without cross-rank edges", p.graph.neighbour_collectives);
    }
    if (dict_.header.has_clock() && dict_.header.clock == "local" && hosts_ > 1) {
      spdlog::warn("times are each rank's own clock (header \"clock\":\"local\"); run rp-clocksync first "
                   "when ranks ran on more than one host");
    }
  }

  std::string TextReport() const;

  const Options& options_;
  const window::Dictionary& dict_;
  trace::Writer* out_;
  std::unordered_map<int64_t, trace::SiteRecord> sites_;
  size_t hosts_ = 0;
  Problems problems_;
  bool started_ = false;
  int64_t run_start_ = 0;
  std::vector<int64_t> last_exit_;
  graph::CriticalPath cp_;
  graph::Zeroings zeroings_;
  std::unique_ptr<graph::TopologicalHeuristic> heuristic_;
  std::vector<std::unique_ptr<Prepared>> kept_;
  std::vector<Segment> decided_;
  Scope run_;
  std::map<int64_t, Scope> phases_;
  std::map<int64_t, std::pair<int64_t, int64_t>> phase_times_;
  int64_t max_phase_ = kNone;
  int64_t complete_below_ = INT64_MIN;
  int64_t path_phase_ = INT64_MIN;
  trace::LineDecoder decoder_;
  trace::Record record_;
};

// A duration in the unit that keeps 3-4 significant digits.
std::string Seconds(int64_t ns) {
  char buf[32];
  const double v = static_cast<double>(ns);
  if (ns < 1000 && ns > -1000) std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  else if (ns < 1000000 && ns > -1000000) std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
  else if (ns < 1000000000 && ns > -1000000000) std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
  return buf;
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%5.1f%%", 100 * share);
  return buf;
}

std::string Analysis::TextReport() const {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  const int64_t run_time = run_.end > run_start_ ? run_.end - run_start_ : 0;
  line(std::string("critical path (") + AlgoName() + "): " + Seconds(run_.length) + " of a " + Seconds(run_time) +
       " run (" + Percent(Share(run_.length, run_time)) + "), ending on rank " + std::to_string(run_.last_rank) +
       (problems_.partial() ? "  [partial: see the warnings]" : ""));
  line("  on the path: compute " + Percent(Share(run_.by_kind[0], run_.length)) + ", mpi " +
       Percent(Share(run_.by_kind[1], run_.length)) + ", transfer " + Percent(Share(run_.by_kind[3], run_.length)) +
       "; unexplained wait " + Seconds(run_.by_kind[2]));
  std::vector<int32_t> ranks;
  for (size_t r = 0; r < run_.ranks.size(); ++r) ranks.push_back(static_cast<int32_t>(r));
  std::stable_sort(ranks.begin(), ranks.end(), [&](int32_t a, int32_t b) { return run_.ranks[a].cp > run_.ranks[b].cp; });
  std::string shares = "  ranks carrying it:";
  for (size_t i = 0; i < ranks.size() && i < 8 && run_.ranks[ranks[i]].cp > 0; ++i) {
    shares += " " + std::to_string(ranks[i]) + " " + Percent(Share(run_.ranks[ranks[i]].cp, run_.length));
  }
  line(shares);
  line("");
  line("   CP%  time%   on path        all ranks      calls  call at site");
  const int64_t total = run_.total_time();
  const std::vector<int32_t> order = ProfileOrder(run_);
  for (size_t i = 0; i < order.size() && i < 20; ++i) {
    const SiteStats& s = run_.sites.at(order[i]);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s %s %14s %14s %8lld  %s at %s", Percent(Share(s.cp(), run_.length)).c_str(),
                  Percent(Share(s.time(), total)).c_str(), Seconds(s.cp()).c_str(), Seconds(s.time()).c_str(),
                  static_cast<long long>(s.calls), CallName(s.fn), Where(order[i]).c_str());
    line(buf);
  }
  if (options_.algo == Algo::kExact && options_.zeroing) {
    line("");
    line("what if it took no time (critical path zeroing):");
    const auto zeroings = ZeroingOrder();
    for (size_t i = 0; i < zeroings.size() && i < 10; ++i) {
      const auto& z = zeroings[i];
      if (z.length >= run_.length) break;
      auto s = run_.sites.find(z.what.site);
      const int32_t fn = s != run_.sites.end() ? s->second.fn : -1;
      line(std::string("  ") + (z.what.compute ? "computation before " : "") + CallName(fn) + " at " +
           Where(z.what.site) + ": " + Seconds(z.length) + " (-" + Seconds(run_.length - z.length) + ", " +
           Percent(Share(run_.length - z.length, run_.length)) + ")");
    }
  }
  const RankStats program = run_.program();
  line("");
  line("imbalance (waiting / (execution + computation)): program " +
       Percent(Share(program.wait_before + program.wait_after, program.execution + program.compute)));
  std::stable_sort(ranks.begin(), ranks.end(), [&](int32_t a, int32_t b) {
    const RankStats &x = run_.ranks[a], &y = run_.ranks[b];
    return x.wait_before + x.wait_after > y.wait_before + y.wait_after;
  });
  for (size_t i = 0; i < ranks.size() && i < 5; ++i) {
    const RankStats& r = run_.ranks[ranks[i]];
    line("  rank " + std::to_string(ranks[i]) + " waits " + Seconds(r.wait_before + r.wait_after) + " (" +
         Percent(Share(r.wait_before + r.wait_after, r.execution + r.compute)) + ")");
  }
  return out;
}

}  // namespace

Status Run(const cli::IoOptions& io, const Options& options) {
  trace::InputSet input(cli::InputPaths(io), cli::ReaderOptionsFor(io));
  window::WindowReader windows(input);
  windows.set_hold_limit(io.hold);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  RP_ASSIGN_OR_RETURN(auto writer, cli::OpenWriter(io));
  if (!options.text) {
    RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-cpath ") + kVersion, writer.get(), nullptr,
                                            !options.passthrough));
  }
  Analysis analysis(options, dict, writer.get());
  cli::Progress progress("rp-cpath", io.verbosity);
  {
    WindowSource source(windows, options.jobs);
    for (;;) {
      RP_ASSIGN_OR_RETURN(std::unique_ptr<Prepared> p, source.Next());
      if (!p) break;
      progress.Update(windows.records_read(), input.raw_bytes());
      RP_RETURN_IF_ERROR(analysis.AddWindow(&p));
      source.Recycle(std::move(p));
    }
  }
  progress.Done();
  cli::WarnAboutWindows(windows);
  if (!analysis.any_calls()) return NothingError("the trace has no mpi records: no critical path");
  RP_RETURN_IF_ERROR(analysis.Finish());
  return writer->Close();
}

}  // namespace rp::cpath
