// Output files that cannot hurt (as zstd and GNU sort -o write them): the
// bytes go to a temporary file beside the target, renamed over it only
// when the writer is closed without error. A tool that fails, or is
// interrupted, leaves the previous file as it was and no partial output.
//
//   RP_ASSIGN_OR_RETURN(auto file, OpenOutputFile("run.ndjson.zst"));
//   RP_RETURN_IF_ERROR(file->Write(bytes));
//   RP_RETURN_IF_ERROR(file->Close());   // renames into place
//   // destroyed without Close(): the temporary file is removed
//
// Targets that are not regular files (/dev/null, a FIFO, a terminal) are
// written directly; a symbolic link is followed, and its target replaced.
#ifndef RP_LIB_TRACE_OUTPUT_FILE_H_
#define RP_LIB_TRACE_OUTPUT_FILE_H_

#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/io.h"

namespace rp::trace {

Expected<std::unique_ptr<ByteSink>> OpenOutputFile(const std::string& path);

// Removes every temporary output file not yet renamed into place. Async-
// signal-safe: lib/cli calls it from its SIGINT/SIGTERM/SIGHUP handler.
void RemoveTemporaryOutputs();

// An error when `output` ("-": stdout) is the same file as one of `inputs`
// ("-": stdin): same device and inode, whatever the names. Writing it
// would destroy the input before it is read.
Status CheckOutputIsNotInput(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_OUTPUT_FILE_H_
