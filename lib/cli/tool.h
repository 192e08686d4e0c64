// The command-line contract every rp-* binary shares, in one place:
//   FILE... (or - / nothing for stdin), -o FILE, -z / --level (automatic for
//   *.zst), -f, -q / -v, --lenient, --version, --help with the exit codes;
//   diagnostics on stderr as "rp-x: message", data on stdout; exit 0 ok,
//   1 nothing usable found, 2 usage or input error.
//
//   int main(int argc, char** argv) {
//     rp::cli::Tool tool("rp-phases", "Cut a run into phases.");
//     rp::cli::IoOptions io;
//     tool.AddInputs(&io);
//     tool.AddOutput(&io);
//     rp::phases::Config config;
//     return tool.Main(argc, argv, [&]() -> rp::Status {
//       RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
//       config.read = streams.read;
//       return rp::phases::Run(config, *streams.input, *streams.output);
//     });
//   }
//
// The stages' libraries never see file names or flags: they take a config,
// a trace::InputSet and a trace::Writer (which they Close() when their
// output is complete; a file is renamed into place only then).
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
  // may hold a window open (window::ReadConfig::hold_limit); set by --hold.
  int64_t hold = window::kDefaultHoldLimit;
  int verbosity = 0;  // -1 per -q, +1 per -v
};

class Progress;

// "1048576" for whole numbers, "%g" for others: for --help.
std::string HelpNumber(double v);
// A value between lo and hi (inclusive), shown in --help as "lo..hi".
template <typename T>
CLI::Validator Between(T lo, T hi) {
  return CLI::Range(lo, hi).description(HelpNumber(static_cast<double>(lo)) + ".." +
                                        HelpNumber(static_cast<double>(hi)));
}
// A value above 0, shown as "> 0".
CLI::Validator Positive();

// "a|b|c", for --help.
std::string ChoiceList(const std::vector<std::string>& names);

// A tool's inputs and output, opened from its command line.
struct Streams {
  std::unique_ptr<trace::InputSet> input;
  std::unique_ptr<trace::Writer> output;
  // --hold, and a progress line when stderr is a terminal.
  window::ReadConfig read;
  // The same progress line for tools that read record by record: call it
  // with the records read so far, every few thousand records.
  std::function<void(int64_t records_read)> progress;
  std::shared_ptr<Progress> progress_line;
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
  // An option that takes one of `choices` (name, value): *value gets the
  // value of the name given; an error lists the names. --help shows them
  // and the name of *value's value on entry, the default.
  template <typename E>
  CLI::Option* AddChoice(const std::string& flags, E* value, const std::vector<std::pair<std::string, E>>& choices,
                         const std::string& help) {
    std::vector<std::string> names;
    std::string current;
    for (const auto& [name, v] : choices) {
      names.push_back(name);
      if (v == *value) current = name;
    }
    auto set = [value, choices](const std::string& given) {
      for (const auto& [name, v] : choices) {
        if (name == given) *value = v;
      }
    };
    return app_.add_option_function<std::string>(flags, set, help)
        ->check(CLI::IsMember(names).description(""))
        ->type_name(ChoiceList(names))
        ->default_str(current);
  }

  // Text after the option list: records read and written, examples. The
  // exit codes are appended.
  void SetFooter(const std::string& text);

  // Parses the command line, sets up stderr logging, runs `run` and returns
  // the process exit code; a failed Status is printed as "name: message".
  int Main(int argc, char** argv, const std::function<Status()>& run);

  // The inputs (AddInputs) and output (AddOutput) of the parsed command
  // line. The output is refused when it is one of the inputs. With
  // `rewindable`, inputs that can be read only once (stdin, pipes, FIFOs)
  // are copied to temporary files first, so that the stage can read them
  // again (InputSet::Rewind). Reading stdin from a terminal says so.
  Expected<Streams> OpenStreams(bool rewindable = false);

 private:
  std::string name_;
  CLI::App app_;
  IoOptions* io_ = nullptr;
  int quiet_ = 0;
  int verbose_ = 0;
};

// The inputs to read: io.inputs, or stdin when none are given.
std::vector<std::string> InputPaths(const IoOptions& io);
// Opens io.output; zstd when -z or when the name ends in .zst. Refuses an
// output that is one of the inputs (InputPaths(io) for tools that read
// traces, else `inputs`); a file is renamed into place only by
// Writer::Close(), so that an error leaves the previous one as it was.
Expected<std::unique_ptr<trace::Writer>> OpenWriter(const IoOptions& io, const std::vector<std::string>& inputs = {});

// A progress line on stderr for long runs, shown only when stderr is a
// terminal and the tool is not quiet. Call it every few thousand records
// (Streams::progress) or per window (window::ReadConfig::progress).
class Progress {
 public:
  Progress(std::string name, int verbosity);
  ~Progress();
  // Checks the time and redraws the line at most 4 times a second.
  void Update(uint64_t records, uint64_t bytes) {
    if (enabled_) Print(records, bytes);
  }
  void Done();

 private:
  void Print(uint64_t records, uint64_t bytes);
  std::string name_;
  bool enabled_;
  int64_t last_ns_ = 0;
};

}  // namespace rp::cli

#endif  // RP_LIB_CLI_TOOL_H_
