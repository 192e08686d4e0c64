#include "lib/recorder/recorder.h"

#include <limits.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lib/recorder/launch.h"
#include "lib/recorder/merge.h"

namespace rp::recorder {
namespace {

std::string SelfDir() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  path[n] = '\0';
  std::string self(path);
  return self.substr(0, self.rfind('/'));
}

std::string Absolute(const std::string& path) {
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real)) return real;
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  return std::string(::getcwd(cwd, sizeof cwd) ? cwd : ".") + "/" + path;
}

// librpcollect.so: --collector, $RP_COLLECTOR, then the installed layout
// (PREFIX/bin/rp-record, PREFIX/lib/rp/librpcollect.so) and the build tree.
Expected<std::string> FindCollector(const std::string& given) {
  std::vector<std::string> candidates;
  if (!given.empty()) candidates.push_back(given);
  else if (const char* env = std::getenv("RP_COLLECTOR"); env && *env) candidates.push_back(env);
  else {
    const std::string dir = SelfDir();
    candidates = {dir + "/librpcollect.so", dir + "/../lib/rp/librpcollect.so",
                  dir + "/../../collector/librpcollect.so",
                  dir + "/rp-record.runfiles/rp/collector/librpcollect.so"};
  }
  for (const std::string& candidate : candidates) {
    if (::access(candidate.c_str(), R_OK) == 0) return Absolute(candidate);
  }
  return InputError("cannot find librpcollect.so (looked at " + candidates.front() +
                    (candidates.size() > 1 ? " and next to rp-record" : "") +
                    "); pass --collector PATH or set RP_COLLECTOR");
}

// Creates the raw directory, or empties it of a previous run's files.
Status PrepareRawDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return InputError(dir + ": cannot create directory: " + std::strerror(errno));
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return InputError(dir + ": not a directory");
  }
  if (::access(dir.c_str(), W_OK) != 0) return InputError(dir + ": not writable");
  for (const auto& [rank, path] : RankFiles(dir)) ::unlink(path.c_str());
  return OkStatus();
}

void RemoveRawDir(const std::string& dir) {
  for (const auto& [rank, path] : RankFiles(dir)) ::unlink(path.c_str());
  ::rmdir(dir.c_str());
}

// The merge's output, opened before anything is run or read: a file is
// written beside its name and renamed into place when the merge is done,
// so that a merge that fails leaves no output (and the raw files, which
// are removed only after a complete merge).
Expected<std::unique_ptr<trace::Writer>> OpenMergeOutput(const OutputOpener& open, const std::string& path,
                                                         const std::string& dir) {
  std::vector<std::string> inputs;
  for (const auto& [rank, file] : RankFiles(dir)) inputs.push_back(file);
  return open(path, inputs);
}

// The outputs of one run: the trace, the online answer, or both.
struct Outputs {
  std::unique_ptr<trace::Writer> trace, online;
  std::string trace_path, online_path;
  int split = 0;
  OutputOpener open;  // the parts of a split trace
  std::vector<std::string> raw_files;
};

Expected<Outputs> OpenOutputs(const Config& config, const OutputOpener& open, const std::string& dir) {
  Outputs out;
  out.split = config.split;
  out.open = open;
  for (const auto& [rank, file] : RankFiles(dir)) out.raw_files.push_back(file);
  if (!config.online) {
    out.trace_path = config.output;
  } else {
    out.online_path = config.output;
    out.trace_path = config.trace_output;
    RP_ASSIGN_OR_RETURN(out.online, OpenMergeOutput(open, out.online_path, dir));
  }
  if (!out.trace_path.empty()) {
    RP_ASSIGN_OR_RETURN(out.trace, OpenMergeOutput(open, out.trace_path, dir));
  }
  return out;
}

std::string Shown(const std::string& path) { return path == "-" ? "<stdout>" : path; }

Status MergeAndReport(const std::string& dir, const std::vector<std::string>& argv, Outputs outputs,
                      bool* complete) {
  MergeOptions options;
  options.argv = argv;
  *complete = true;
  if (outputs.trace) {
    options.split = outputs.split;
    options.split_index = outputs.trace_path;
    options.open_part = [&](const std::string& path) { return outputs.open(path, outputs.raw_files); };
    RP_ASSIGN_OR_RETURN(MergeReport report, Merge(dir, options, *outputs.trace));
    RP_RETURN_IF_ERROR(outputs.trace->Close());
    options.split = 0;
    spdlog::info("{} ranks, {} events, {} samples, {} call sites, {} communicators -> {}{}", report.world_size,
                 report.events, report.samples, report.sites, report.comms, Shown(outputs.trace_path),
                 report.parts > 0 ? fmt::format(" (the index of {} parts, {})", report.parts,
                                                trace::PartPath(outputs.trace_path, 0, report.parts) + " ...")
                                  : std::string());
    for (const std::string& problem : report.problems) spdlog::warn("{}", problem);
    *complete &= report.problems.empty();
  }
  if (outputs.online) {
    options.online = true;
    RP_ASSIGN_OR_RETURN(MergeReport report, Merge(dir, options, *outputs.online));
    RP_RETURN_IF_ERROR(outputs.online->Close());
    spdlog::info("{} ranks, online critical path from {} piggybacked paths ({} bytes){} -> {}", report.world_size,
                 report.online_piggybacks, report.online_piggyback_bytes,
                 report.online_skipped_calls > 0
                     ? ", " + std::to_string(report.online_skipped_calls) +
                           " calls on communicators without a duplicate left local"
                     : std::string(),
                 Shown(outputs.online_path));
    // Problems were told with the trace's merge already.
    if (!outputs.trace) {
      for (const std::string& problem : report.problems) spdlog::warn("{}", problem);
    }
    *complete &= report.problems.empty();
  }
  return OkStatus();
}

}  // namespace

Status Run(const Config& options, const OutputOpener& open_output) {
  if (options.split > 1) {
    const std::string& index = options.online ? options.trace_output : options.output;
    if (index.empty()) return InputError("--split splits the trace: with --online, give it --trace FILE");
    if (index == "-") return InputError("--split writes files beside its index: give -o FILE, not stdout");
  }
  if (!options.merge_dir.empty()) {
    if (!options.command.empty()) {
      return InputError("--merge takes no command (got '" + options.command[0] + "')");
    }
    bool complete = false;
    RP_ASSIGN_OR_RETURN(Outputs outputs, OpenOutputs(options, open_output, options.merge_dir));
    RP_RETURN_IF_ERROR(MergeAndReport(options.merge_dir, {}, std::move(outputs), &complete));
    if (!complete) return InputError("the trace is incomplete (see above); merged what was there");
    return OkStatus();
  }
  if (options.command.empty()) {
    return InputError("no command given; usage: rp-record [-o OUT] -- mpirun -np 4 ./app");
  }
  std::string launcher_path;
  if (!FindProgram(options.command[0], &launcher_path)) {
    return InputError(options.command[0] + ": command not found");
  }
  RP_ASSIGN_OR_RETURN(std::string collector, FindCollector(options.collector));
  if (options.output == "-") {
    // The job's own stdout would interleave with the trace.
    spdlog::warn("writing the trace to stdout, where the job's output goes too");
  }
  const std::string raw_dir =
      Absolute(options.raw_dir.empty()
                   ? (options.output == "-" ? std::string("rp-trace.raw") : options.output + ".raw")
                   : options.raw_dir);
  // Opened before the job runs: an output that cannot be written fails now.
  RP_ASSIGN_OR_RETURN(Outputs outputs, OpenOutputs(options, open_output, raw_dir));
  RP_RETURN_IF_ERROR(PrepareRawDir(raw_dir));

  LaunchOptions launch;
  launch.command = options.command;
  launch.collector = collector;
  launch.env = {{"RP_DIR", raw_dir},
                {"RP_SAMPLE_HZ", std::to_string(options.sample_hz)},
                {"RP_BUFFER_KB", std::to_string(options.buffer_kb)},
                {"RP_SITES", options.sites ? "1" : "0"},
                {"RP_SHARED_CLOCK", options.shared_clock ? "1" : "0"},
                {"RP_ONLINE", options.online ? "1" : "0"},
                {"RP_TRACE", !options.online || !options.trace_output.empty() ? "1" : "0"},
                {"RP_ONLINE_PATHS", std::to_string(options.online ? options.online_paths : 0)},
                {"RP_ONLINE_SELECT", options.online_topk ? "topk" : "repr"},
                {"RP_ONLINE_ZEROING", options.online && options.online_zeroing ? "1" : "0"}};
  spdlog::debug("collector {}, raw files in {}", collector, raw_dir);
  RP_ASSIGN_OR_RETURN(int exit_code, Launch(launch));
  if (exit_code != 0) {
    spdlog::warn("{} exited with status {}; merging what the ranks recorded", options.command[0], exit_code);
  }
  if (RankFiles(raw_dir).empty()) {
    return InputError("no rank recorded anything in " + raw_dir +
                      " (did the command start MPI programs? is RP_DIR on a file system all "
                      "nodes can write?)");
  }
  bool complete = false;
  const Status merged = MergeAndReport(raw_dir, options.command, std::move(outputs), &complete);
  if (!merged.ok()) {
    spdlog::warn("raw files kept in {} (rp-record --merge {} merges them again)", raw_dir, raw_dir);
    return merged;
  }
  if (complete && exit_code == 0 && !options.keep) {
    RemoveRawDir(raw_dir);
  } else if (!complete || exit_code != 0) {
    spdlog::warn("raw files kept in {} (rp-record --merge {} merges them again)", raw_dir, raw_dir);
  }
  if (exit_code != 0) return InputError("the recorded command failed (exit status " + std::to_string(exit_code) + ")");
  if (!complete) return InputError("the trace is incomplete (see above)");
  return OkStatus();
}

}  // namespace rp::recorder
