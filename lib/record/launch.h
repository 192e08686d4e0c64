// Runs an MPI launch command with the collector preloaded into the ranks.
// Open MPI's mpirun/mpiexec get the settings as `-x NAME=VALUE` (forwarded to
// remote nodes, not applied to mpirun itself); any other command (srun,
// MPICH's mpiexec, a singleton ./app) gets them in its environment.
#ifndef RP_LIB_RECORD_LAUNCH_H_
#define RP_LIB_RECORD_LAUNCH_H_

#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"

namespace rp::record {

struct LaunchOptions {
  std::vector<std::string> command;  // launcher and its arguments
  std::string collector;             // path of librpcollect.so
  std::vector<std::pair<std::string, std::string>> env;  // RP_* settings
};

// True when `launcher` is Open MPI's (mpirun, mpiexec, orterun, or a link
// to them), which needs -x to pass environment variables to the ranks.
bool IsOpenMpiLauncher(const std::string& launcher);

// The command line actually run (with -x options inserted where needed).
std::vector<std::string> LaunchCommand(const LaunchOptions& options, bool open_mpi);

// Runs the command and waits for it. Returns its exit status, 128 + signal
// when it was killed; an error when it cannot be started.
Expected<int> Launch(const LaunchOptions& options);

// Finds `program` on PATH (or checks it if it contains a slash).
bool FindProgram(const std::string& program, std::string* path);

}  // namespace rp::record

#endif  // RP_LIB_RECORD_LAUNCH_H_
