// rp-diagnose: the answer, not the data (diagnosis paper §5, Tables 1–2;
// POP efficiency metrics). Reads a stream after rp-clocksync and
// rp-phases, measures each phase (figures.h), sums the phases of each
// cluster and of the run, and writes:
//   efficiency records: POP's load balance, communication, serialisation,
//     transfer and parallel efficiencies, for the run and each cluster;
//   finding records, most severe first: each problem with its severity
//     (the share of run time its fix would save), where it is lost (the
//     MPI call and site), its causes (functions, ranks), the numbers
//     behind it and a remedy.
//
//   diagnose::Config config;
//   RP_RETURN_IF_ERROR(diagnose::Run(config, input, out));
#ifndef RP_LIB_DIAGNOSE_DIAGNOSE_H_
#define RP_LIB_DIAGNOSE_DIAGNOSE_H_

#include "lib/base/status.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::diagnose {

struct Config {
  double threshold = 0.01;  // findings below this share of run time are dropped (the paper's 1%)
  double cause_share = 0.10;  // a cause adds at least this share of its finding's loss (the paper's 10%)
  bool passthrough = true;
  window::ReadConfig read;
};

// Reads `input`, writes its records (passthrough), then the efficiency and
// finding records, and closes `out`. Exit status 1 (NothingError) for a
// trace without mpi records.
Status Run(const Config& config, trace::InputSet& input, trace::Writer& out);

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_DIAGNOSE_H_
