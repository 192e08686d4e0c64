// rp-record: run an MPI job with the collector preloaded, then merge the
// per-rank files into one rp-trace stream (or only merge, with --merge).
#ifndef RP_LIB_RECORD_RECORD_H_
#define RP_LIB_RECORD_RECORD_H_

#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/cli/tool.h"

namespace rp::record {

struct Options {
  std::vector<std::string> command;  // after --
  std::string merge_dir;             // --merge DIR: merge only
  std::string raw_dir;               // where ranks write (default OUTPUT.raw)
  std::string collector;             // librpcollect.so (default: found next to rp-record)
  bool keep = false;                 // keep the raw files after merging
  int sample_hz = 200;
  int buffer_kb = 1024;
  bool sites = true;
};

// Exit status: 0 when the command succeeded and every rank's data is
// complete; 2 when the command failed or data is missing (what was
// recorded is still merged and the gaps are listed).
Status Run(const cli::IoOptions& io, const Options& options);

}  // namespace rp::record

#endif  // RP_LIB_RECORD_RECORD_H_
