// rp-cpath: the critical path of a run, its profile, what-if zeroing and
// imbalance (online critical path paper §2–3 and appendix B; mpi-graph
// paper §3–5).
//
// Streams the trace window by window (lib/window): each window's program
// activity graph is built (lib/graph), the longest paths advanced, and the
// part of the critical path every rank's path now shares is written as
// cp_segment records right after the window's own records. At the end come
// the rest of the path and the summaries: per phase (when rp-phases tagged
// the records) and for the whole run (records.h). lib/report renders them
// for people.
//
//   cpath::Config config;
//   config.jobs = 2;
//   RP_RETURN_IF_ERROR(cpath::Run(config, input, out));
#ifndef RP_LIB_CPATH_CPATH_H_
#define RP_LIB_CPATH_CPATH_H_

#include <memory>

#include "lib/base/status.h"
#include "lib/cpath/code.h"
#include "lib/cpath/scope.h"
#include "lib/graph/window_graphs.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::cpath {

enum class Algo { kExact, kReplay, kHeuristic };

struct Config {
  Algo algo = Algo::kExact;
  int jobs = 1;              // threads building graphs; output does not depend on it
  bool passthrough = true;   // copy the input records to the output
  bool zeroing = true;       // cp_zeroing (exact only)
  int top = 5;               // cp_top: sites with more than 1/top of the path
  bool phases = true;        // per-phase records when phases are tagged
  bool phase_ranks = false;  // per-phase, per-rank imbalance too
  bool warn = true;          // log what the graph had to leave out
  window::ReadConfig read;
};

// Run's analysis for a stage that reads the windows itself (rp-diagnose
// when no rp-cpath ran before it): each window's graph in, the cp_*
// records out (not the input's records, whatever config.passthrough says).
class Analysis {
 public:
  // `config`, `dict` and `out` must outlive the analysis.
  Analysis(const Config& config, const window::Dictionary& dict, trace::Writer& out);
  ~Analysis();
  // Takes *window when it must keep it (Algo::kReplay).
  Status AddWindow(std::unique_ptr<graph::WindowGraph>* window);
  // The rest of the path and the summaries.
  Status Finish();
  bool any_calls() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// What the path's graph and samples had to leave out, on the log
// (stderr): the samples' gaps, dependencies missing or dropped, ranks cut
// short, and local clocks on more than one host.
void WarnAbout(const Problems& problems, const NamedCode& code, const window::Dictionary& dict);

// Reads `input`, writes its records (config.passthrough) and the cp_*
// records to `out`, and closes it. Exit status 1 (NothingError) for a
// trace without mpi records.
Status Run(const Config& config, trace::InputSet& input, trace::Writer& out);

}  // namespace rp::cpath

#endif  // RP_LIB_CPATH_CPATH_H_
