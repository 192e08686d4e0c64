// Windows with their program activity graphs, ready for an analysis: the
// window reader's windows, each matched, built into a Graph and its calls
// split into wait and execution (imbalance.h). With jobs > 1 the graphs are
// built on that many threads while the caller analyses earlier windows;
// windows come out in input order either way, so results do not depend on
// the number of threads.
//
//   graph::WindowGraphs windows(reader, jobs);
//   for (;;) {
//     RP_ASSIGN_OR_RETURN(std::unique_ptr<graph::WindowGraph> w, windows.Next());
//     if (!w) break;
//     ... w->graph, w->times ...
//     windows.Recycle(std::move(w));  // its buffers serve a later window
//   }
#ifndef RP_LIB_GRAPH_WINDOW_GRAPHS_H_
#define RP_LIB_GRAPH_WINDOW_GRAPHS_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"
#include "lib/graph/imbalance.h"
#include "lib/match/match.h"
#include "lib/window/window.h"

namespace rp::graph {

// One window and what is built from it.
struct WindowGraph {
  window::Window window;
  match::Matching matching;
  Graph graph;
  std::vector<CallTimes> times;  // by event

  void Build(const window::Dictionary& dict);
};

class WindowGraphs {
 public:
  WindowGraphs(window::WindowReader& reader, int jobs) : reader_(reader), jobs_(std::max(jobs, 1)) {}
  ~WindowGraphs() { Stop(); }

  // The next window with its graph; null after the last.
  Expected<std::unique_ptr<WindowGraph>> Next();

  // A window done with, whose buffers the next one reuses: a window's text
  // and arrays grow to their size once, not on every window.
  void Recycle(std::unique_ptr<WindowGraph> w);

 private:
  std::unique_ptr<WindowGraph> Take();
  void Begin();
  void Stop();
  // Keeps a few windows per builder in flight: memory stays bounded.
  size_t Limit() const { return 2 * static_cast<size_t>(jobs_) + 2; }
  void ReadAll();
  void BuildAll();

  window::WindowReader& reader_;
  const int jobs_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::pair<uint64_t, std::unique_ptr<WindowGraph>>> todo_;
  std::map<uint64_t, std::unique_ptr<WindowGraph>> done_;
  std::vector<std::unique_ptr<WindowGraph>> spare_;
  uint64_t read_ = 0, next_out_ = 0;
  bool eof_ = false, stop_ = false;
  Status status_;
};

}  // namespace rp::graph

#endif  // RP_LIB_GRAPH_WINDOW_GRAPHS_H_
