// rp-record: run an MPI job with the collector preloaded, then merge the
// per-rank files into one rp-trace stream (or only merge, with --merge).
#ifndef RP_LIB_RECORDER_RECORDER_H_
#define RP_LIB_RECORDER_RECORDER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/writer.h"

namespace rp::recorder {

struct Config {
  std::string output = "rp-trace.ndjson.zst";  // the trace ("-": stdout); names the raw directory
  std::vector<std::string> command;  // after --
  std::string merge_dir;             // --merge DIR: merge only
  std::string raw_dir;               // where ranks write (default OUTPUT.raw)
  std::string collector;             // librpcollect.so (default: found next to rp-record)
  bool keep = false;                 // keep the raw files after merging
  int sample_hz = 200;
  int buffer_kb = 1024;
  bool sites = true;
  bool shared_clock = true;  // ranks of one host and boot share one clock
  // --online: the critical path computed in the run is the output; with
  // --trace FILE the run is traced too, into FILE.
  bool online = false;
  std::string trace_output;
  // --online-paths K: k representative paths kept in the run too (0: none),
  // the k/2 most and least costly with --select topk.
  int online_paths = 0;
  bool online_topk = false;
  // --online-zeroing: critical path zeroing (cp_zeroing) in the run too.
  bool online_zeroing = false;
  // --split N: the trace as N files of rank groups and an index (the
  // trace's path); 0: one stream.
  int split = 0;
};


// Opens `path` (config.output or config.trace_output) for the merge,
// refusing one of `inputs` (the raw files): lib/cli's file handling.
using OutputOpener = std::function<Expected<std::unique_ptr<trace::Writer>>(
    const std::string& path, const std::vector<std::string>& inputs)>;

// Exit status: 0 when the command succeeded and every rank's data is
// complete; 2 when the command failed or data is missing (what was
// recorded is still merged and the gaps are listed).
Status Run(const Config& config, const OutputOpener& open_output);

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_RECORDER_H_
