// rp-hops' stage: net and link records in; hop_path records, one per
// packet, and hop_summary records (by device, link, sender and for the
// run) out. See hops.h for the reconstruction.
#ifndef RP_LIB_HOPS_RUN_H_
#define RP_LIB_HOPS_RUN_H_

#include <cstdint>

#include "lib/base/status.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"

namespace rp::hops {

struct RunConfig {
  int64_t window = 1000000;     // ns
  int64_t calibrate = 200000;   // net tuples that estimate the clock offsets; 0: none
  bool paths = true;            // write hop_path records
};

// Reads `input`, writes to `out` and closes it. Exit status 1
// (NothingError) without net records.
Status Run(const RunConfig& config, trace::InputSet& input, trace::Writer& out);

}  // namespace rp::hops

#endif  // RP_LIB_HOPS_RUN_H_
