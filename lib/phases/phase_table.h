// What rp-phases computes of a window's phases, shared by the one-process
// stage (phases.cc) and the parallel one (parallel.cc), which computes it
// over its ranks and combines the processes' parts. Internal to lib/phases.
#ifndef RP_LIB_PHASES_PHASE_TABLE_H_
#define RP_LIB_PHASES_PHASE_TABLE_H_

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/phases/phases.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::phases::internal {

// A phase's part in one window (of every rank, or of one process's ranks).
struct Phase {
  int64_t id = 0;
  int64_t first_t0 = INT64_MAX;
  int64_t last_t1 = INT64_MIN;
  int64_t close = INT64_MIN;  // latest exit of its closing synchronization
  int64_t events = 0;
  Signature signature;
  std::vector<size_t> lines;  // indices in the window, input order
};

// The phases of a window's lines, by id (their ranks' synchronization
// levels): the application's time in each, counts and signatures.
class PhaseCollector {
 public:
  PhaseCollector();
  std::map<int64_t, Phase> Collect(const window::Window& w);
  int64_t events() const { return events_; }  // mpi records so far

 private:
  std::vector<uint64_t> function_hash_;  // by mpi function, then "?"
  int64_t events_ = 0;
};

// The phase records in phase order: t0 at the previous phase's close,
// cluster and iteration by signature.
class PhaseNamer {
 public:
  // `run`: the only phase of a run without global synchronization.
  trace::PhaseRecord Next(int64_t id, int64_t first_t0, int64_t last_t1, int64_t close, int64_t events,
                          const std::string& signature, bool run);
  size_t clusters() const { return clusters_.size(); }

 private:
  std::unordered_map<std::string, int64_t> clusters_;  // signature -> cluster id
  std::vector<int64_t> iterations_;                    // by cluster
  int64_t previous_close_ = INT64_MIN;
};

// Writes the window's `lines` tagged with phase `id` (an earlier
// rp-phases' phase records dropped).
Status WriteTagged(const window::Window& w, const std::vector<size_t>& lines, int64_t id, trace::Writer* writer);

}  // namespace rp::phases::internal

#endif  // RP_LIB_PHASES_PHASE_TABLE_H_
