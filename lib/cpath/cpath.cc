#include "lib/cpath/cpath.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "lib/base/version.h"
#include "lib/cpath/records.h"
#include "lib/cpath/scope.h"
#include "lib/graph/alternatives.h"
#include "lib/graph/path.h"
#include "lib/graph/window_graphs.h"
#include "lib/trace/codec.h"

namespace rp::cpath {
namespace {

using graph::Segment;
using window::kNone;

const char* AlgoName(Algo algo) {
  switch (algo) {
    case Algo::kExact: return "exact";
    case Algo::kReplay: return "replay";
    case Algo::kHeuristic: return "heuristic";
  }
  return "?";
}

}  // namespace

class Analysis::Impl {
 public:
  Impl(const Config& config, const window::Dictionary& dict, trace::Writer& out)
      : config_(config), dict_(dict), out_(out), records_(dict, out), code_(dict) {
    for (const trace::RankRecord& r : dict.rank_records) {
      if (r.has_complete() && !r.complete) ++problems_.incomplete_ranks;
    }
  }

  // Takes *window when it must keep it (Algo::kReplay).
  Status AddWindow(std::unique_ptr<graph::WindowGraph>* window) {
    std::unique_ptr<graph::WindowGraph>& p = *window;
    const window::Window& w = p->window;
    const graph::Graph& g = p->graph;
    problems_.Count(g.problems(), p->matching);
    if (!started_ && !w.events.empty()) {
      started_ = true;
      run_start_ = g.application_start();
      heuristic_ = std::make_unique<graph::TopologicalHeuristic>(run_start_);
    }
    const bool zeroing = config_.algo == Algo::kExact && config_.zeroing;
    RP_RETURN_IF_ERROR(code_.AddWindow(w, run_start_, zeroing));
    CountCalls(*p);
    if (config_.passthrough) {
      for (const window::Line& r : w.lines) RP_RETURN_IF_ERROR(out_.WriteRaw(w.text(r)));
    }
    RP_RETURN_IF_ERROR(NotePhaseTimes(w));
    decided_.clear();
    switch (config_.algo) {
      case Algo::kExact:
        if (config_.zeroing) zeroings_.Add(g, cp_, code_.cuts());
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
    switch (config_.algo) {
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
    code_.Finish();
    const NamedCode named = code_.Named();
    if (config_.warn) WarnAbout(problems_, named, dict_);
    RP_RETURN_IF_ERROR(records_.WriteScope(run_, kNone, {run_start_, run_.end}, AlgoName(config_.algo), problems_,
                                           true, &named));
    if (config_.algo == Algo::kExact && config_.zeroing) {
      RP_RETURN_IF_ERROR(records_.WriteZeroings(run_, zeroings_.Results(), code_));
    }
    return records_.WriteTop(run_, config_.top, named);
  }

  bool any_calls() const { return started_; }

 private:
  // Every call's time and where it went, for the profile's total column and
  // the imbalance metrics.
  void CountCalls(const graph::WindowGraph& p) {
    const int64_t max_phase =
        AddCalls(p.graph, p.times, run_start_, &last_exit_, &run_, config_.phases ? &phases_ : nullptr);
    if (max_phase != kNone) max_phase_ = std::max<int64_t>(max_phase_ == kNone ? max_phase : max_phase_, max_phase);
  }

  // The phase records' times: a phase's summary spans them.
  Status NotePhaseTimes(const window::Window& w) {
    for (const window::Line& r : w.lines) {
      if (r.type != trace::RecordType::kPhase) continue;
      RP_RETURN_IF_ERROR(decoder_.DecodeCopy(w.text(r), &record_));
      phase_times_[record_.phase.id] = {record_.phase.t0, record_.phase.t1};
    }
    return OkStatus();
  }

  // Writes and counts the segments decided so far.
  Status Decided() {
    for (const Segment& s : decided_) {
      run_.AddSegment(s);
      code_.AddSegment(s);
      if (s.phase != kNone && config_.phases) {
        phases_[s.phase].AddSegment(s);
        path_phase_ = std::max<int64_t>(path_phase_, s.phase);
      }
      RP_RETURN_IF_ERROR(records_.WriteSegment(s));
    }
    if (!decided_.empty()) code_.DecidedUntil(decided_.back().t1);
    return OkStatus();
  }

  Status WriteFinishedPhases(bool all) {
    while (!phases_.empty()) {
      auto it = phases_.begin();
      if (!all && (it->first >= complete_below_ || it->first >= path_phase_)) break;
      RecordWriter::Span span{it->second.start, it->second.end};
      auto times = phase_times_.find(it->first);
      if (times != phase_times_.end()) span = {times->second.first, times->second.second};
      RP_RETURN_IF_ERROR(
          records_.WriteScope(it->second, it->first, span, AlgoName(config_.algo), problems_, config_.phase_ranks));
      phase_times_.erase(it->first);
      phases_.erase(it);
    }
    return OkStatus();
  }

  const Config& config_;
  const window::Dictionary& dict_;
  trace::Writer& out_;
  RecordWriter records_;
  CodeProfile code_;
  Problems problems_;
  bool started_ = false;
  int64_t run_start_ = 0;
  std::vector<int64_t> last_exit_;
  graph::CriticalPath cp_;
  graph::Zeroings zeroings_;
  std::unique_ptr<graph::TopologicalHeuristic> heuristic_;
  std::vector<std::unique_ptr<graph::WindowGraph>> kept_;
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

void WarnAbout(const Problems& p, const NamedCode& code, const window::Dictionary& dict) {
  for (const std::string& w : code.Warnings()) spdlog::warn("{}", w);
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
  std::set<std::string> hosts;
  for (const trace::RankRecord& r : dict.rank_records) {
    if (r.has_host()) hosts.insert(r.host);
  }
  if (dict.header.has_clock() && dict.header.clock == "local" && hosts.size() > 1) {
    spdlog::warn("times are each rank's own clock (header \"clock\":\"local\"); run rp-clocksync first "
                 "when ranks ran on more than one host");
  }
}

Analysis::Analysis(const Config& config, const window::Dictionary& dict, trace::Writer& out)
    : impl_(std::make_unique<Impl>(config, dict, out)) {}
Analysis::~Analysis() = default;
Status Analysis::AddWindow(std::unique_ptr<graph::WindowGraph>* window) { return impl_->AddWindow(window); }
Status Analysis::Finish() { return impl_->Finish(); }
bool Analysis::any_calls() const { return impl_->any_calls(); }

Status Run(const Config& config, trace::InputSet& input, trace::Writer& out) {
  window::WindowReader windows(input, window::Boundaries::kClean, config.read);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-cpath ") + kVersion, &out, nullptr,
                                          !config.passthrough));
  Analysis analysis(config, dict, out);
  {
    graph::WindowGraphs source(windows, config.jobs);
    for (;;) {
      RP_ASSIGN_OR_RETURN(std::unique_ptr<graph::WindowGraph> p, source.Next());
      if (!p) break;
      RP_RETURN_IF_ERROR(analysis.AddWindow(&p));
      source.Recycle(std::move(p));
    }
  }
  window::WarnAboutInput(windows);
  if (!analysis.any_calls()) return NothingError("the trace has no mpi records: no critical path");
  RP_RETURN_IF_ERROR(analysis.Finish());
  return out.Close();
}

}  // namespace rp::cpath
