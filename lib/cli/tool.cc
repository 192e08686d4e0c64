#include "lib/cli/tool.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>

#include "lib/base/version.h"
#include "lib/trace/output_file.h"

namespace rp::cli {
namespace {

// "%*" in the log pattern: "warning: " or "error: " before messages of
// those levels, nothing before plain information.
class LevelPrefix : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view prefix;
    switch (msg.level) {
      case spdlog::level::warn: prefix = "warning: "; break;
      case spdlog::level::err:
      case spdlog::level::critical: prefix = "error: "; break;
      case spdlog::level::debug:
      case spdlog::level::trace: prefix = "debug: "; break;
      default: break;
    }
    dest.append(prefix.data(), prefix.data() + prefix.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<LevelPrefix>();
  }
};

void SetUpLogging(const std::string& name, int verbosity) {
  auto logger = spdlog::stderr_logger_st(name);
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<LevelPrefix>('*').set_pattern("%n: %*%v");
  logger->set_formatter(std::move(formatter));
  spdlog::level::level_enum level = spdlog::level::info;
  if (verbosity <= -2) level = spdlog::level::off;
  else if (verbosity == -1) level = spdlog::level::err;
  else if (verbosity == 1) level = spdlog::level::debug;
  else if (verbosity >= 2) level = spdlog::level::trace;
  logger->set_level(level);
  spdlog::set_default_logger(std::move(logger));
}

// An interrupted tool leaves no temporary output behind (the target file
// is untouched until a tool finishes), then dies of the signal as it would
// have.
void OnTerminatingSignal(int sig) {
  trace::RemoveTemporaryOutputs();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Tool::Tool(std::string name, std::string purpose) : name_(std::move(name)), app_(purpose, name_) {
  app_.set_version_flag("--version", std::string(name_) + " (rp) " + kVersion);
  app_.add_flag("-q,--quiet", quiet_, "fewer messages on stderr (-qq: none)");
  app_.add_flag("-v,--verbose", verbose_, "more messages on stderr (-vv: trace)");
  app_.get_formatter()->column_width(28);
}

void Tool::AddInputs(IoOptions* io) {
  io_ = io;
  io->reads_traces = true;
  app_.add_option("files", io->inputs,
                  "rp-trace streams, plain NDJSON or zstd; none or - reads stdin")
      ->type_name("FILE");
  app_.add_flag("--lenient", io->lenient,
                "skip malformed lines (counted on stderr) instead of stopping");
}

void Tool::AddHold(IoOptions* io) {
  app_.add_option("--hold", io->hold,
                  "records a rank with no events count may send nothing while it holds a window open; then it is "
                  "taken as finished (memory stays bounded when a rank's records are missing)")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

void WarnAboutWindows(const window::WindowReader& reader) {
  for (const std::string& warning : reader.input_report().Warnings(reader.hold_limit())) spdlog::warn(warning);
}

void Tool::AddOutput(IoOptions* io) {
  io_ = io;
  app_.add_option("-o,--output", io->output, "write to FILE instead of stdout")
      ->type_name("FILE");
  app_.add_flag("-z,--zstd", io->zstd, "compress output with zstd (default for -o *.zst)");
  app_.add_option("--level", io->zstd_level, "zstd compression level, 1-19")
      ->type_name("N")
      ->check(CLI::Range(1, 19))
      ->default_val(trace::kDefaultZstdLevel);
  app_.add_flag("-f,--force", io->force, "write zstd output even to a terminal");
}

void Tool::SetFooter(const std::string& text) {
  app_.footer(text + "\n\nExit status: 0 ok, 1 nothing usable found, 2 usage or input error.\n");
}

int Tool::Main(int argc, char** argv, const std::function<Status()>& run) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app_.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app_.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app_.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", name_.c_str(), e.what(),
                 name_.c_str());
    return static_cast<int>(StatusCode::kInput);
  }
  const int verbosity = verbose_ - quiet_;
  if (io_ != nullptr) io_->verbosity = verbosity;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, OnTerminatingSignal);
  SetUpLogging(name_, verbosity);
  Status status;
  try {
    status = run();
  } catch (const std::bad_alloc&) {
    status = InputError("out of memory");
  } catch (const std::exception& e) {
    status = InputError(std::string("internal error: ") + e.what());
  }
  if (!status.ok()) {
    if (status.code() == StatusCode::kNothing) {
      spdlog::warn("{}", status.message());
    } else {
      spdlog::error("{}", status.message());
    }
  }
  spdlog::default_logger()->flush();
  return status.exit_code();
}

std::vector<std::string> InputPaths(const IoOptions& io) {
  if (io.inputs.empty()) return {"-"};
  return io.inputs;
}

trace::ReaderOptions ReaderOptionsFor(const IoOptions& io) {
  trace::ReaderOptions options;
  options.lenient = io.lenient;
  return options;
}

Expected<std::unique_ptr<trace::Writer>> OpenWriter(const IoOptions& io) {
  if (io.reads_traces) RP_RETURN_IF_ERROR(trace::CheckOutputIsNotInput(io.output, InputPaths(io)));
  trace::OutputOptions options;
  options.zstd = io.zstd || trace::HasZstdSuffix(io.output);
  options.zstd_level = io.zstd_level;
  options.force = io.force;
  return trace::Writer::Open(io.output, options);
}

Progress::Progress(std::string name, int verbosity)
    : name_(std::move(name)), enabled_(verbosity >= 0 && ::isatty(STDERR_FILENO)) {
  last_ns_ = NowNs();
}

Progress::~Progress() { Done(); }

void Progress::Print(uint64_t records, uint64_t bytes) {
  const int64_t now = NowNs();
  if (now - last_ns_ < 250'000'000) return;
  last_ns_ = now;
  shown_ = true;
  std::fprintf(stderr, "\r%s: %.1f M records, %.1f MB read   ", name_.c_str(), records / 1e6,
               bytes / 1e6);
  std::fflush(stderr);
}

void Progress::Done() {
  if (!shown_) return;
  shown_ = false;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace rp::cli
