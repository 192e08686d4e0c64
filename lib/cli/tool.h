// The command-line contract every rp-* binary shares, in one place:
//   FILE... (or - / nothing for stdin), -o FILE, -z / --level (automatic for
//   *.zst), -f, -q / -v, --lenient, --version, --help with the exit codes;
//   diagnostics on stderr as "rp-x: message", data on stdout; exit 0 ok,
//   1 nothing usable found, 2 usage or input error.
//
//   int main(int argc, char** argv) {
//     rp::cli::Tool tool("rp-cat", "Concatenate, validate and convert streams.");
//     rp::cli::IoOptions io;
//     tool.AddInputs(&io);
//     tool.AddOutput(&io);
//     return tool.Main(argc, argv, [&] { return rp::cat::Run(io, ...); });
//   }
#ifndef RP_LIB_CLI_TOOL_H_
#define RP_LIB_CLI_TOOL_H_

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/reader.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::cli {

struct IoOptions {
  bool reads_traces = false;        // set by Tool::AddInputs
  std::vector<std::string> inputs;  // empty means stdin
  std::string output = "-";
  bool zstd = false;
  int zstd_level = trace::kDefaultZstdLevel;
  bool force = false;
  bool lenient = false;
  // Stages that read windows (lib/window): how many records a silent rank
  // may hold a window open (WindowReader::set_hold_limit); set by --hold.
  int64_t hold = window::kDefaultHoldLimit;
  int verbosity = 0;  // -1 per -q, +1 per -v
};

class Tool {
 public:
  Tool(std::string name, std::string purpose);

  CLI::App& app() { return app_; }
  const std::string& name() const { return name_; }

  // Positional input files and --lenient.
  void AddInputs(IoOptions* io);
  // --hold, for stages that read windows (lib/window).
  void AddHold(IoOptions* io);
  // -o, -z, --level, -f.
  void AddOutput(IoOptions* io);
  // Text after the option list: records read and written, examples. The
  // exit codes are appended.
  void SetFooter(const std::string& text);

  // Parses the command line, sets up stderr logging, runs `run` and returns
  // the process exit code; a failed Status is printed as "name: message".
  int Main(int argc, char** argv, const std::function<Status()>& run);

 private:
  std::string name_;
  CLI::App app_;
  IoOptions* io_ = nullptr;
  int quiet_ = 0;
  int verbose_ = 0;
};

// The inputs to read: io.inputs, or stdin when none are given.
std::vector<std::string> InputPaths(const IoOptions& io);
trace::ReaderOptions ReaderOptionsFor(const IoOptions& io);
// Opens io.output; zstd when -z or when the name ends in .zst. Refuses an
// output that is one of the inputs; a file is renamed into place only by
// Writer::Close(), so that an error leaves the previous one as it was.
Expected<std::unique_ptr<trace::Writer>> OpenWriter(const IoOptions& io);

// The reader's warnings about ranks that held windows open, on stderr.
void WarnAboutWindows(const window::WindowReader& reader);

// A progress line on stderr for long runs, shown only when stderr is a
// terminal and the tool is not quiet. Cheap to call per record.
class Progress {
 public:
  Progress(std::string name, int verbosity);
  ~Progress();
  void Tick(uint64_t records, uint64_t bytes) {
    if (enabled_ && (records & 0xFFFF) == 0) Print(records, bytes);
  }
  // For callers that report rarely (per window): always checks the time.
  void Update(uint64_t records, uint64_t bytes) {
    if (enabled_) Print(records, bytes);
  }
  void Done();

 private:
  void Print(uint64_t records, uint64_t bytes);
  std::string name_;
  bool enabled_;
  bool shown_ = false;
  int64_t last_ns_ = 0;
};

}  // namespace rp::cli

#endif  // RP_LIB_CLI_TOOL_H_
