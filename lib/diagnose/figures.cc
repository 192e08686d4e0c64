#include "lib/diagnose/figures.h"

#include <algorithm>

namespace rp::diagnose {

using window::kNone;

Figures::Figures(const window::Dictionary& dict)
    : attribution_(dict),
      sets_(repr::Config{.k = 2, .select = repr::Select::kRepr, .cost = repr::Cost::kCompute, .reset_at_phase = true}) {}

PhaseFigures& Figures::At(int32_t phase, size_t ranks) {
  PhaseFigures& f = open_[phase];
  f.phase = phase;
  if (f.ranks.size() < ranks) f.ranks.resize(ranks);
  return f;
}

void Figures::End(int32_t phase, std::vector<PhaseFigures>* ended) {
  auto it = open_.find(phase);
  if (it == open_.end()) return;  // no calls but MPI_Init's: nothing measured
  it->second.cluster = ends_.cluster(phase);
  for (auto& [fn, ns] : it->second.functions) ns.resize(it->second.ranks.size());
  ended->push_back(std::move(it->second));
  open_.erase(it);
}

Status Figures::AddWindow(const graph::WindowGraph& wg, std::vector<PhaseFigures>* ended) {
  const window::Window& w = wg.window;
  const graph::Graph& g = wg.graph;
  RP_RETURN_IF_ERROR(ends_.NoteRecords(w));
  attribution_.ForgetBefore(INT64_MAX);  // each window's computations are asked for once
  if (w.events.empty()) return attribution_.AddWindow(w, run_start_);  // samples after the last call
  if (!started_) {
    started_ = true;
    run_start_ = g.application_start();
    phased_ = ends_.Phased(w);
  }
  RP_RETURN_IF_ERROR(attribution_.AddWindow(w, run_start_));
  if (phased_) {
    for (int32_t phase : ends_.EndedBefore(w)) End(phase, ended);
  }
  sets_.Run(g, carried_, run_start_);
  states_.Find(wg);
  const size_t ranks = std::max<size_t>(w.by_rank.size(), g.ranks());
  for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
    // The previous call's exit, where the computation before a call starts.
    int64_t before = rank < carried_.size() && carried_[rank].started ? carried_[rank].time : run_start_;
    for (uint32_t e : w.by_rank[rank]) {
      const window::Event& ev = w.events[e];
      const int64_t start = std::max(before, run_start_);
      before = ev.t1;
      const int64_t end = ev.bounds_application() ? ev.t0 : ev.t1;
      run_end_ = std::max(run_end_, end);
      if (ev.category() == mpi::Category::kInit) continue;  // before it is not the application's
      if (ev.site != kNone) {
        std::vector<bool>& callers = callers_[ev.site];
        if (callers.size() <= rank) callers.resize(ranks);
        callers[rank] = true;
      }
      PhaseFigures& f = At(phased_ ? ev.phase : kNone, ranks);
      RankFigures& r = f.ranks[rank];
      const profile::Attribution::Computation c = attribution_.Before(e);
      if (r.held && !ev.bounds_application()) {  // not the closing call after all
        f.waits[r.held->key].Add(static_cast<int32_t>(rank), r.held->delayer, r.held->wait, r.held->cost);
        r.held.reset();
      }
      if (!r.present) f.t0 = std::min(f.t0, start);
      f.t1 = std::max(f.t1, end);
      r.present = true;
      r.compute += c.t1 - c.t0;
      for (const profile::Share* s = c.begin; s != c.end; ++s) {
        const int32_t function = attribution_.tree().node(attribution_.tree().node(s->node).owner).function;
        std::vector<int64_t>& ns = f.functions[function];
        if (ns.size() < ranks) ns.resize(ranks);
        ns[rank] += s->ns;
      }
      f.ideal = std::max(f.ideal, sets_.begin(graph::Exit(e))->cost);
      if (ev.bounds_application()) continue;
      r.mpi += ev.t1 - ev.t0;
      const graph::CallTimes& t = wg.times[e];
      r.wait += t.wait_before + t.wait_after;
      if (ev.site != kNone) {
        SiteFigures& site = f.sites[ev.site];
        site.fn = ev.fn;
        ++site.calls;
        site.time += ev.t1 - ev.t0;
        site.work += t.execution;
        site.bytes += std::max(ev.bytes, ev.rbytes);
        const std::string_view name = ev.fn >= 0 ? mpi::kFunctions[ev.fn].name : "";
        if (name.starts_with("MPI_Test") ? ev.completed_count > 0 : name.ends_with("probe") && ev.bytes > 0) {
          ++site.hits;
        }
        if (site.ranks.size() < ranks) site.ranks.resize(ranks);
        site.ranks[rank] += ev.t1 - ev.t0;
      }
      timeline_.Call(f.phase, phased_ ? ends_.cluster(f.phase) : -1, static_cast<int32_t>(rank), start, ev.t0,
                     t.wait_before, ev.t1);
      // The last call so far: the closing one if the phase ends here.
      const bool sync = w.lines[ev.line].global_sync;
      r.closing_wait = sync ? t.wait_before : 0;
      r.closing_site = sync ? ev.site : kNone;
      r.closing_fn = sync ? ev.fn : -1;
      if (const Pattern p = states_.pattern[e]; p != Pattern::kNone) {
        const uint32_t delayer = states_.delayer[e];
        RankFigures::Held s{WaitKey{p, ev.site, ev.fn}, w.events[delayer].rank, t.wait_before,
                            Delay(attribution_, e, delayer, t.wait_before)};
        if (sync && (p == Pattern::kWaitNxN || p == Pattern::kWaitBarrier)) {
          r.held = std::move(s);
        } else {
          f.waits[s.key].Add(static_cast<int32_t>(rank), s.delayer, s.wait, s.cost);
        }
      }
    }
  }
  sets_.Carry(g, &carried_);
  if (phased_) {
    for (int32_t phase : ends_.EndedIn(w)) End(phase, ended);
  }
  return OkStatus();
}

void SiteFigures::Add(const SiteFigures& o) {
  fn = o.fn;
  calls += o.calls;
  time += o.time;
  work += o.work;
  bytes += o.bytes;
  hits += o.hits;
  if (ranks.size() < o.ranks.size()) ranks.resize(o.ranks.size());
  for (size_t r = 0; r < o.ranks.size(); ++r) ranks[r] += o.ranks[r];
}

int64_t Figures::callers(int32_t site) const {
  auto it = callers_.find(site);
  return it == callers_.end() ? 0 : std::count(it->second.begin(), it->second.end(), true);
}

void Figures::Finish(std::vector<PhaseFigures>* ended) {
  attribution_.Finish();
  std::vector<int32_t> open;
  for (const auto& [phase, f] : open_) open.push_back(phase);
  for (int32_t phase : open) End(phase, ended);
}

}  // namespace rp::diagnose
