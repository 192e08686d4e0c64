// Runs an MPI launch command with the collector preloaded into the ranks.
// Open MPI's mpirun/mpiexec get the settings as `-x NAME=VALUE` at the start
// of every application context (after mpirun and after each `:` of an MPMD
// command line, since -x only applies to its own context): the variables
// reach the ranks on every node, not mpirun itself. (Open MPI's other way,
// mca_base_env_list, may not be mixed with the user's own -x.) Any other
// command (srun, MPICH's mpiexec, a singleton ./app) gets them in its
// environment.
#ifndef RP_LIB_RECORDER_LAUNCH_H_
#define RP_LIB_RECORDER_LAUNCH_H_

#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"

namespace rp::recorder {

struct LaunchOptions {
  std::vector<std::string> command;  // launcher and its arguments
  std::string collector;             // path of librpcollect.so
  std::vector<std::pair<std::string, std::string>> env;  // RP_* settings
};

// True when `launcher` is Open MPI's (mpirun, mpiexec, orterun, or a link
// to them), which needs -x to pass environment variables to the ranks.
bool IsOpenMpiLauncher(const std::string& launcher);

// The settings, LD_PRELOAD first.
std::vector<std::pair<std::string, std::string>> Settings(const LaunchOptions& options);
// The command line actually run: for Open MPI, with the settings as -x
// options opening every application context.
std::vector<std::string> LaunchCommand(const LaunchOptions& options, bool open_mpi);

// Runs the command and waits for it. Returns its exit status, 128 + signal
// when it was killed; an error when it cannot be started.
Expected<int> Launch(const LaunchOptions& options);

// Finds `program` on PATH (or checks it if it contains a slash).
bool FindProgram(const std::string& program, std::string* path);

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_LAUNCH_H_
