// rp-cat: concatenate, filter, validate, count and convert rp-trace streams.
// The tool users and tests reach for to check any stream.
#ifndef RP_LIB_CAT_CAT_H_
#define RP_LIB_CAT_CAT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/input_set.h"
#include "lib/trace/split.h"
#include "lib/trace/writer.h"

namespace rp::cat {

struct Config {
  bool validate = false;           // check records and the stream; print a report
  bool count = false;              // print records per type instead of the stream
  bool summary = false;            // print MPI time per function and rank
  bool schema = false;             // print the record schema (Markdown)
  std::vector<std::string> types;  // keep only these types (the header always)
  // Called with the records read so far, every 65,536 records; may be empty.
  std::function<void(int64_t records)> progress;
};

// A time-ordered stream (any stage's output) written as a split trace
// (lib/trace/split.h) of `parts` equal rank groups: `index` (at
// `index_path`) gets the records before the first event and the part
// records; the parts lie beside it, opened by `open_part`. Closes `index`.
Status Split(int parts, const std::string& index_path, const trace::PartOpener& open_part, trace::InputSet& input,
             trace::Writer& index, const std::function<void(int64_t records)>& progress);

// Record type names accepted by --type.
std::vector<std::string> TypeNames();

// Reads `input` and writes to `out` (the records, or the report asked for)
// and closes it. Exit status 2 when --validate finds problems (the report
// is written all the same).
Status Run(const Config& config, trace::InputSet& input, trace::Writer& out);

}  // namespace rp::cat

#endif  // RP_LIB_CAT_CAT_H_
