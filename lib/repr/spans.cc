#include "lib/repr/spans.h"

namespace rp::repr {

void LastExits(const graph::Graph* g, int32_t phase, std::vector<uint32_t>* nodes, std::vector<bool>* here) {
  if (g == nullptr) return;
  const window::Window& w = g->window();
  for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
    for (auto e = w.by_rank[rank].rbegin(); e != w.by_rank[rank].rend(); ++e) {
      if (phase == window::kNone || w.events[*e].phase == phase) {
        nodes->push_back(graph::Exit(*e));
        if (rank < here->size()) (*here)[rank] = true;
        break;
      }
    }
  }
}

void Spans::Note(const window::Window& w, const std::vector<RankSet>& carried, int64_t run_start, bool phased) {
  for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
    const bool started = rank < carried.size() && carried[rank].started;
    int64_t before = started ? carried[rank].time : run_start;
    // The phase whose first task on this rank was seen (MPI_Init's is not one).
    int32_t begun = started ? carried[rank].phase : INT32_MIN;
    for (uint32_t e : w.by_rank[rank]) {
      const window::Event& ev = w.events[e];
      const int64_t end = ev.bounds_application() ? ev.t0 : ev.t1;
      run_end_ = std::max(run_end_, end);
      if (phased && ev.phase != window::kNone) {
        Span& span = phases_[ev.phase];
        if (ev.phase != begun && ev.category() != mpi::Category::kInit) {
          span.start = std::min(span.start, std::max(before, run_start));
          begun = ev.phase;
        }
        span.end = std::max(span.end, end);
      }
      before = ev.t1;
    }
  }
}

Span Spans::Take(int32_t phase) {
  auto it = phases_.find(phase);
  if (it == phases_.end()) return {};
  const Span span = it->second;
  phases_.erase(it);
  return span;
}

}  // namespace rp::repr
