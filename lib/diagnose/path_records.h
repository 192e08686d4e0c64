// The critical path's run-wide records rp-diagnose's critical-path
// findings read: rp-cpath's cp_summary, cp_profile (sites and functions)
// and cp_zeroing, taken from the stream when rp-cpath ran before, else
// computed here with lib/cpath's Analysis on the same windows (never a
// second critical path).
#ifndef RP_LIB_DIAGNOSE_PATH_RECORDS_H_
#define RP_LIB_DIAGNOSE_PATH_RECORDS_H_

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "lib/base/status.h"
#include "lib/cpath/cpath.h"
#include "lib/diagnose/timeline.h"
#include "lib/graph/window_graphs.h"
#include "lib/trace/codec.h"
#include "lib/trace/writer.h"

namespace rp::diagnose {

struct PathRecords {
  std::optional<trace::CpSummaryRecord> summary;
  std::vector<trace::CpProfileRecord> sites, functions;
  std::vector<trace::CpZeroingRecord> zeroings;

  // Keeps a run-wide record of those types (phase records are passed over).
  void Keep(const trace::Record& r);
  // The records as rp-trace lines, for another process (rp-diagnose-mpi),
  // and each such line kept again, in its order.
  Expected<std::string> Text() const;
  Status KeepText(std::string_view text);
};

class PathSource {
 public:
  // From the stream when its header names rp-cpath among its producers;
  // each step of the critical path (cp_segment) goes to `step`, with its
  // record's place in the stream.
  using StepSink = std::function<void(const trace::CpSegmentRecord&, const StreamPlace&)>;
  PathSource(const window::Dictionary& dict, StepSink step);
  ~PathSource();

  Status AddWindow(std::unique_ptr<graph::WindowGraph>* w);
  Status Finish();
  const PathRecords& records() const { return records_; }

 private:
  PathRecords records_;
  StepSink step_;
  StreamPlace place_;  // of the path record last read
  trace::LineDecoder decoder_;
  trace::Record record_;
  // Without rp-cpath's records: the analysis (which keeps a reference to
  // its config) and the writer it writes to.
  cpath::Config config_;
  std::unique_ptr<trace::Writer> writer_;
  std::unique_ptr<cpath::Analysis> analysis_;
};

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_PATH_RECORDS_H_
