// The input and output of a stage on many processes (cmd/*/main_mpi.cc):
// one split trace, its index given by name (every process opens it), and
// a split output (or, where the stage allows, one stream from process 0).
#ifndef RP_LIB_CLI_SPLIT_IO_H_
#define RP_LIB_CLI_SPLIT_IO_H_

#include <memory>
#include <string_view>

#include "lib/base/status.h"
#include "lib/cli/tool.h"
#include "lib/dist/split_output.h"
#include "lib/trace/input_set.h"

namespace rp::cli {

struct SplitIo {
  std::unique_ptr<trace::InputSet> input;
  dist::OutputFiles output;
};

// `stage`: the binary's name, for errors. `one_stream`: the output may be
// stdout (the stage writes one stream, e.g. --no-passthrough); `hint`
// says how to ask for that (" (or --no-passthrough)").
Expected<SplitIo> OpenSplitIo(std::string_view stage, const IoOptions& io, bool one_stream,
                              std::string_view hint = "");

}  // namespace rp::cli

#endif  // RP_LIB_CLI_SPLIT_IO_H_
