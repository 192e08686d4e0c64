// Where a stage on many processes writes (mpirun -np P rp-<stage>-mpi IN
// -o OUT): a split trace. Process 0 writes the index (the prelude, then a
// part record per part, the index closed last as the commit point); every
// process that reads ranks writes its part (trace::PartPath(OUT, p, P)),
// started with the prelude's header line. Without passthrough a stage
// writes one stream, process 0's index alone.
//
//   dist::SplitOutput out(comm, files);
//   RP_RETURN_IF_ERROR(out.Open(prelude, input.first_rank() <= input.last_rank()));
//   RP_RETURN_IF_ERROR(out.WriteLine(text, time));   // into this process's part
//   RP_RETURN_IF_ERROR(out.Close(input.first_rank(), input.last_rank()));
#ifndef RP_LIB_DIST_SPLIT_OUTPUT_H_
#define RP_LIB_DIST_SPLIT_OUTPUT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/trace/split.h"
#include "lib/trace/writer.h"

namespace rp::dist {

struct OutputFiles {
  std::string path;      // the index (or, without passthrough, the one stream)
  trace::PartOpener open;  // opens a file for writing, by the tool's output rules
};

class SplitOutput {
 public:
  SplitOutput(Comm& comm, const OutputFiles& files) : comm_(comm), files_(files) {}

  // Process 0 opens the index and writes `prelude` (whole lines); with
  // `part`, this process opens its part, started with the header line.
  Status Open(std::string_view prelude, bool part);
  // One stream instead (no passthrough): process 0's, with `prelude`.
  Status OpenStream(std::string_view prelude);

  trace::Writer* part() const { return part_.get(); }
  trace::Writer* index() const { return index_.get(); }
  // A line into the part, with its time for the part record (INT64_MIN:
  // none, a record of no rank).
  Status WriteLine(std::string_view line, int64_t time = INT64_MIN);
  // Lines written into the part another way, for its part record.
  void Count(int64_t records, int64_t t0 = INT64_MAX, int64_t t1 = INT64_MIN);

  // Every process: closes its part; process 0 names each part (every
  // process's ranks first..last, none when first > last) in the index and
  // closes it last. Without parts (one stream) process 0 closes the index.
  Status Close(int64_t first_rank, int64_t last_rank);

 private:
  Comm& comm_;
  const OutputFiles& files_;
  std::unique_ptr<trace::Writer> part_, index_;
  bool parts_ = false;  // some process writes a part
  int64_t records_ = 0, t0_ = INT64_MAX, t1_ = INT64_MIN;
};

}  // namespace rp::dist

#endif  // RP_LIB_DIST_SPLIT_OUTPUT_H_
