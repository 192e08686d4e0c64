// rp-repr: representative paths (representative paths paper, §3–5): for
// each phase (rp-phases; the whole run as one phase without them), k paths
// that sample the distribution of path costs — the 100%, 75%, 50%, 25%
// and 0% paths for k = 5 — each written as its cost and its tasks, grouped
// into intervals on one rank (the paper's path summary).
//
// Streams the trace window by window (lib/window, lib/graph): each window's
// path sets are computed (path_sets.h) and a phase's paths chosen where it
// ends. A phase that runs on into the next window (the run without
// rp-phases) keeps, per rank and kept path, its tasks so far.
//
//   repr::Config config;
//   config.k = 8;
//   RP_RETURN_IF_ERROR(repr::Run(config, input, out));
#ifndef RP_LIB_REPR_REPR_H_
#define RP_LIB_REPR_REPR_H_

#include "lib/base/status.h"
#include "lib/profile/context_tree.h"
#include "lib/repr/path_profile.h"
#include "lib/repr/path_sets.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::repr {

enum class Space {
  kPath,  // each kept path and its tasks (path, path_interval)
  kProf,  // path profiles only (path_profile): size follows the code
};

struct StageConfig {
  int k = 5;
  Space space = Space::kPath;
  Select select = Select::kRepr;
  Cost cost = Cost::kCompute;
  bool passthrough = true;  // copy the input records to the output
  window::ReadConfig read;
};

// Reads `input`, writes its records (passthrough), then each phase's path
// and path_interval records as the phase ends (Space::kPath), or at the
// end the path profiles (Space::kProf); at the end, either way, the
// differences between the 100% and 0% paths and the two around the median
// (path_diff). Closes `out`. Exit status 1 (NothingError) for a trace
// without mpi records.
Status Run(const StageConfig& config, trace::InputSet& input, trace::Writer& out);

// What rp-repr and rp-repr-mpi share at their start and end: `config`
// checked (k in range), the path profiles and differences written, and
// the run's warnings told (phases reopened, no samples, no phase records,
// dependencies back in time).
Status CheckConfig(const StageConfig& config);
Status WriteProfiles(const StageConfig& config, const PathProfiles& profiles, const profile::ContextTree& tree,
                     trace::Writer& out);
void WarnAboutRun(bool reopened, bool samples, bool phased, int64_t backward);

}  // namespace rp::repr

#endif  // RP_LIB_REPR_REPR_H_
