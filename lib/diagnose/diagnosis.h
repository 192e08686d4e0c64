// The diagnosis of a run from its phases' figures (diagnose.h): each
// phase's figures added to its cluster's and the run's sums as it ends,
// then the efficiency records, the findings, most severe first, and the
// timeline of the cluster that took the most time. rp-diagnose feeds it
// window by window; rp-diagnose-mpi feeds it on one process the phases
// merged from all.
//
//   Diagnosis diagnosis(config, dict);
//   for (each phase ended) diagnosis.Add(figures_of_it);
//   RP_RETURN_IF_ERROR(diagnosis.Write(figures, path_records, out));
#ifndef RP_LIB_DIAGNOSE_DIAGNOSIS_H_
#define RP_LIB_DIAGNOSE_DIAGNOSIS_H_

#include <cstdint>
#include <map>

#include "lib/base/status.h"
#include "lib/diagnose/diagnose.h"
#include "lib/diagnose/figures.h"
#include "lib/diagnose/path_records.h"
#include "lib/diagnose/totals.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::diagnose {

class Diagnosis {
 public:
  Diagnosis(const Config& config, const window::Dictionary& dict) : config_(config), dict_(dict) {}

  // A phase's figures, once it ended (in phase order).
  void Add(const PhaseFigures& f);
  // The records, from the run's tables in `figures` and the critical path's.
  Status Write(const Figures& figures, const PathRecords& path, trace::Writer& out);

 private:
  const Config& config_;
  const window::Dictionary& dict_;
  std::map<int64_t, Totals> clusters_;
  Totals run_;  // its own runtime; the other sums over all phases
};

// What the user should know about the run's input: no phases, no
// samples, dependencies back in time (unsynchronized clocks).
void WarnAboutRun(bool phased, bool samples, int64_t backward_edges);

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_DIAGNOSIS_H_
