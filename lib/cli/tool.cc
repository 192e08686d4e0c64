#include "lib/cli/tool.h"

#include <spdlog/details/null_mutex.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

// Whether a progress line stands on stderr now: a message first erases it.
bool g_progress_shown = false;

void EraseProgressLine() {
  if (!g_progress_shown) return;
  g_progress_shown = false;
  std::fprintf(stderr, "\r\033[K");
}

// stderr, with the progress line erased before each message.
class StderrSink : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    EraseProgressLine();
    spdlog::memory_buf_t text;
    formatter_->format(msg, text);
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

void SetUpLogging(const std::string& name, int verbosity) {
  auto logger = std::make_shared<spdlog::logger>(name, std::make_shared<StderrSink>());
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

// A terminal on stdin is told what is expected of it instead of being
// waited on in silence.
void NoteTerminal(const std::string& tool) {
  if (!::isatty(STDIN_FILENO)) return;
  spdlog::info("reading an rp-trace stream from the terminal; name a FILE or pipe one in "
               "('{} --help' shows how), Ctrl-D ends the input", tool);
}

// A copy of what can be read once (a pipe, a FIFO, a terminal) in an
// unlinked temporary file, kept open for the process: its descriptor.
Expected<int> Spool(int from, const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/rp-spool.XXXXXX";
  const int fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) return InputError("cannot create a spool file for " + name + ": " + std::strerror(errno));
  ::unlink(path.c_str());  // gone with the process
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(from, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return InputError("cannot read " + name + ": " + std::strerror(errno));
    if (got == 0) break;
    if (::write(fd, buf, got) != got) return InputError("cannot spool " + name + " to " + path + ": " + std::strerror(errno));
  }
  return fd;
}

// An input a stage can read more than once (InputSet::Rewind), each time
// from where it started: a regular file is opened (or, as stdin, seeked)
// again; anything else is read once into a spool file first, and messages
// still name it.
Expected<trace::Opener> RewindableInput(const std::string& path, const std::string& tool) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "<stdin>" : path;
  struct stat st {};
  if (is_stdin ? ::fstat(STDIN_FILENO, &st) != 0 : ::stat(path.c_str(), &st) != 0) {
    return InputError(name + ": cannot open: " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) {
    if (!is_stdin) return trace::Opener([path] { return trace::OpenInput(path); });
    const off_t start = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    return trace::Opener([start, name]() -> Expected<std::unique_ptr<trace::ByteSource>> {
      if (start >= 0 && ::lseek(STDIN_FILENO, start, SEEK_SET) < 0) {
        return InputError(std::string("cannot rewind stdin: ") + std::strerror(errno));
      }
      return trace::OpenInputFd(STDIN_FILENO, name);
    });
  }
  int from = STDIN_FILENO;
  if (is_stdin) {
    NoteTerminal(tool);
  } else {
    from = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (from < 0) return InputError(path + ": cannot open: " + std::strerror(errno));
  }
  Expected<int> spooled = Spool(from, name);
  if (!is_stdin) ::close(from);
  RP_RETURN_IF_ERROR(spooled.status());
  const int fd = *spooled;
  return trace::Opener([fd, name]() -> Expected<std::unique_ptr<trace::ByteSource>> {
    if (::lseek(fd, 0, SEEK_SET) < 0) return InputError("cannot rewind " + name + ": " + std::strerror(errno));
    return trace::OpenInputFd(fd, name);
  });
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// --help: "--level N    zstd compression level (1..19; default 1)": the
// value's name alone after the option, what it may be and its default in
// words after the description, and no "{false}" on flags.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_type_size() == 0) return "";
    std::string type = opt->get_type_name();
    type = type.substr(0, type.find(':'));
    std::string out = type.empty() ? "" : " " + type;
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    return out;
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::vector<std::string> notes;
    if (opt->get_type_size() != 0) {
      const std::string type = opt->get_type_name();
      for (size_t at = type.find(':'); at != std::string::npos; at = type.find(':', at + 1)) {
        notes.push_back(type.substr(at + 1, type.find(':', at + 1) - at - 1));
      }
      const std::string value = opt->get_default_str();
      if (!value.empty() && value != "[]") notes.push_back("default " + value);
    }
    std::string out = opt->get_description();
    for (size_t i = 0; i < notes.size(); ++i) out += (i == 0 ? " (" : "; ") + notes[i];
    return notes.empty() ? out : out + ")";
  }
};

}  // namespace

std::string HelpNumber(double v) {
  char buf[32];
  if (v == static_cast<double>(static_cast<int64_t>(v))) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

CLI::Validator Positive() { return CLI::PositiveNumber.description("> 0"); }

Tool::Tool(std::string name, std::string purpose) : name_(std::move(name)), app_(purpose, name_) {
  app_.set_version_flag("--version", std::string(name_) + " (rp) " + kVersion);
  app_.add_flag("-q,--quiet", quiet_, "fewer messages on stderr (-qq: none)");
  app_.add_flag("-v,--verbose", verbose_, "more messages on stderr (-vv: trace)");
  app_.formatter(std::make_shared<HelpFormatter>());
  app_.get_formatter()->column_width(28);
  app_.option_defaults()->always_capture_default();
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
      ->check(Positive());
}

void Tool::AddOutput(IoOptions* io) {
  io_ = io;
  app_.add_option("-o,--output", io->output, "write to FILE instead of stdout")->type_name("FILE")->default_str("");
  app_.add_flag("-z,--zstd", io->zstd, "compress output with zstd (default for -o *.zst)");
  app_.add_option("--level", io->zstd_level, "zstd compression level")->type_name("N")->check(Between(1, 19));
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
  // What was ignored stays ignored (nohup, a job started in the
  // background), in this process and in what it runs.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    std::signal(sig, OnTerminatingSignal);
  }
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

Expected<Streams> Tool::OpenStreams(bool rewindable) {
  Streams streams;
  const std::vector<std::string> paths = InputPaths(*io_);
  std::vector<trace::Opener> inputs;
  for (const std::string& path : paths) {
    if (rewindable) {
      RP_ASSIGN_OR_RETURN(trace::Opener opener, RewindableInput(path, name_));
      inputs.push_back(std::move(opener));
    } else if (path == "-") {
      inputs.push_back([name = name_] {
        NoteTerminal(name);
        return trace::OpenInput("-");
      });
    } else {
      inputs.push_back([path] { return trace::OpenInput(path); });
    }
  }
  trace::ReaderOptions reader;
  reader.lenient = io_->lenient;
  streams.input = std::make_unique<trace::InputSet>(std::move(inputs), reader);
  RP_ASSIGN_OR_RETURN(streams.output, OpenWriter(*io_));
  auto line = std::make_shared<Progress>(name_, io_->verbosity);
  streams.progress_line = line;
  trace::InputSet* input = streams.input.get();
  streams.progress = [line, input](int64_t records) { line->Update(records, input->raw_bytes()); };
  streams.read.hold_limit = io_->hold;
  streams.read.progress = streams.progress;
  return streams;
}

std::string ChoiceList(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : "|") + name;
  return list;
}

std::vector<std::string> InputPaths(const IoOptions& io) {
  if (io.inputs.empty()) return {"-"};
  return io.inputs;
}

Expected<std::unique_ptr<trace::Writer>> OpenWriter(const IoOptions& io, const std::vector<std::string>& inputs) {
  RP_RETURN_IF_ERROR(trace::CheckOutputIsNotInput(io.output, io.reads_traces ? InputPaths(io) : inputs));
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
  g_progress_shown = true;
  std::fprintf(stderr, "\r%s: %.1f M records, %.1f MB read   ", name_.c_str(), records / 1e6,
               bytes / 1e6);
  std::fflush(stderr);
}

void Progress::Done() {
  EraseProgressLine();
  std::fflush(stderr);
}

}  // namespace rp::cli
