// Writing a split trace (rp-record --split, rp-cat --split): the records
// before the first event go to the index, each mpi and sample record to
// the file of its rank's group, any other record after the first event to
// the file of the event before it, and last the index names the files in
// part records. Each part starts with the index's header (trace::InputSet
// checks they match) and holds the trace's records of its ranks in the
// trace's order, so merging the parts in the trace's order (time, then
// rank; phase first in a phased stream: Reader::OrderKey), each other
// record right after the one it follows, gives the trace back
// (input_set.h).
//
//   RP_ASSIGN_OR_RETURN(auto split, trace::SplitWriter::Open("run.ndjson.zst", groups, open, header_line));
//   RP_ASSIGN_OR_RETURN(trace::Writer * out, split->For(mpi.rank, mpi.t0));
//   RP_RETURN_IF_ERROR(out->Write(mpi));
//   RP_RETURN_IF_ERROR(split->Finish(index));           // closes the parts first
#ifndef RP_LIB_TRACE_SPLIT_H_
#define RP_LIB_TRACE_SPLIT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/schema.h"
#include "lib/trace/writer.h"

namespace rp::trace {

struct RankGroup {
  int64_t first = 0, last = 0;
};

// `n` contiguous groups of ranks 0..weights.size()-1 with about equal
// weight each (at least one rank each; n is at most the ranks). Equal
// weights: equal numbers of ranks.
std::vector<RankGroup> BalancedGroups(const std::vector<int64_t>& weights, int n);

// The file of part k of n beside the index `index`:
// run.ndjson.zst -> run.part3.ndjson.zst (k zero-padded to n's width).
std::string PartPath(const std::string& index, int k, int n);

// The part record of a part file (named as in the index: without its
// directory) with `records` records between times t0 and t1.
PartRecord PartRecordOf(const std::string& path, const RankGroup& ranks, int64_t records, int64_t t0, int64_t t1);

// Opens the file at `path` for writing (the caller's output rules).
using PartOpener = std::function<Expected<std::unique_ptr<Writer>>(const std::string& path)>;

class SplitWriter {
 public:
  struct Part {
    std::unique_ptr<Writer> writer;
    std::string path;
    RankGroup ranks;
  };
  // Parts of contiguous rank groups, in rank order.
  explicit SplitWriter(std::vector<Part> parts);
  // The parts of `index`, one per group, opened, each started with
  // `header_line`: the index's own, byte for byte (without its newline).
  static Expected<std::unique_ptr<SplitWriter>> Open(const std::string& index, const std::vector<RankGroup>& groups,
                                                     const PartOpener& open, std::string_view header_line);

  // The writer of `rank`'s part, counting a record at `time` (mpi t0,
  // sample t) for the index.
  Expected<Writer*> For(int64_t rank, int64_t time);
  // The writer of a record that is no event, after the first event: the
  // part of the event before it (nullptr before any event: the index's).
  Writer* After();
  // Closes the parts, then writes their part records to `index`.
  Status Finish(Writer& index);
  size_t parts() const { return parts_.size(); }

 private:
  struct Extent {
    int64_t records = 0, t0 = INT64_MAX, t1 = INT64_MIN;
  };
  std::vector<Part> parts_;
  std::vector<Extent> extents_;
  std::vector<uint32_t> part_of_;  // by rank
  uint32_t last_ = UINT32_MAX;     // the part of the last event
};

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_SPLIT_H_
