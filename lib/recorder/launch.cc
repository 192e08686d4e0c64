#include "lib/recorder/launch.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rp::recorder {
namespace {

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The launcher's own --version output.
std::string VersionText(const std::string& launcher) {
  const std::string command = "'" + launcher + "' --version 2>&1";
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buf[512];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0 && out.size() < 4096) out.append(buf, got);
    ::pclose(pipe);
  }
  return out;
}

}  // namespace

bool FindProgram(const std::string& program, std::string* path) {
  if (program.find('/') != std::string::npos) {
    *path = program;
    return ::access(program.c_str(), X_OK) == 0;
  }
  const char* env = std::getenv("PATH");
  std::string dirs = env ? env : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) {
      *path = candidate;
      return true;
    }
    start = end + 1;
  }
  return false;
}

bool IsOpenMpiLauncher(const std::string& launcher) {
  std::string path;
  if (!FindProgram(launcher, &path)) return false;
  char real[PATH_MAX];
  const std::string resolved = ::realpath(path.c_str(), real) ? real : path;
  const std::string name = Basename(resolved);
  if (name == "orterun" || name == "prterun") return true;
  const std::string called = Basename(launcher);
  if (called != "mpirun" && called != "mpiexec" && name != "mpirun" && name != "mpiexec") return false;
  const std::string version = VersionText(path);
  return version.find("Open MPI") != std::string::npos || version.find("OpenRTE") != std::string::npos;
}

std::vector<std::pair<std::string, std::string>> Settings(const LaunchOptions& options) {
  std::vector<std::pair<std::string, std::string>> env = options.env;
  std::string preload = options.collector;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing) {
    preload += std::string(":") + existing;
  }
  env.insert(env.begin(), {"LD_PRELOAD", preload});
  return env;
}

std::vector<std::string> LaunchCommand(const LaunchOptions& options, bool open_mpi) {
  if (!open_mpi || options.command.empty()) return options.command;
  std::vector<std::string> xs;
  for (const auto& [name, value] : Settings(options)) {
    xs.push_back("-x");
    xs.push_back(name + "=" + value);
  }
  std::vector<std::string> command;
  for (size_t i = 0; i < options.command.size(); ++i) {
    command.push_back(options.command[i]);
    if (i == 0 || options.command[i] == ":") command.insert(command.end(), xs.begin(), xs.end());
  }
  return command;
}

Expected<int> Launch(const LaunchOptions& options) {
  if (options.command.empty()) return InputError("no command to run (usage: rp-record -- mpirun -np 4 ./app)");
  std::string launcher;
  if (!FindProgram(options.command[0], &launcher)) {
    return InputError(options.command[0] + ": command not found");
  }
  const bool open_mpi = IsOpenMpiLauncher(options.command[0]);
  const std::vector<std::string> command = LaunchCommand(options, open_mpi);
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  // While the job runs, Ctrl-C reaches it through the terminal; rp-record
  // stays to merge what the ranks flushed.
  struct sigaction ignore {}, old_int {}, old_term {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGTERM, &ignore, &old_term);

  const pid_t child = ::fork();
  if (child < 0) return InputError(std::string("cannot fork: ") + std::strerror(errno));
  if (child == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (!open_mpi) {
      for (const auto& [name, value] : Settings(options)) ::setenv(name.c_str(), value.c_str(), 1);
    }
    ::execv(launcher.c_str(), argv.data());
    std::fprintf(stderr, "rp-record: cannot run %s: %s\n", launcher.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  int wstatus = 0;
  while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return 1;
}

}  // namespace rp::recorder
