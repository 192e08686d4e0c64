// rp-cat: concatenate, filter, validate, count and convert rp-trace streams.
// The tool users and tests reach for to check any stream.
#ifndef RP_LIB_CAT_CAT_H_
#define RP_LIB_CAT_CAT_H_

#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/cli/tool.h"

namespace rp::cat {

struct Options {
  bool validate = false;           // check records and the stream; print a report
  bool count = false;              // print records per type instead of the stream
  bool summary = false;            // print MPI time per function and rank
  bool schema = false;             // print the record schema (Markdown)
  std::vector<std::string> types;  // keep only these types (the header always)
};

// Record type names accepted by --type.
std::vector<std::string> TypeNames();

Status Run(const cli::IoOptions& io, const Options& options);

}  // namespace rp::cat

#endif  // RP_LIB_CAT_CAT_H_
