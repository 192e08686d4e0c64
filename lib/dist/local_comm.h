// dist::Comm for tests: P threads of one process as the processes of a
// parallel analysis, so that the distributed algorithms are unit-tested
// without mpirun. Every collective is a barrier over shared slots.
//
//   dist::LocalGroup::Run(3, [&](dist::Comm& comm) {
//     ... the algorithm, on comm.rank() of comm.size() ...
//   });
#ifndef RP_LIB_DIST_LOCAL_COMM_H_
#define RP_LIB_DIST_LOCAL_COMM_H_

#include <functional>

#include "lib/dist/comm.h"

namespace rp::dist {

class LocalGroup {
 public:
  // Runs `body` on `processes` threads, each with its own Comm, and waits
  // for them all. Every thread must make the same collectives.
  static void Run(int processes, const std::function<void(Comm&)>& body);
};

}  // namespace rp::dist

#endif  // RP_LIB_DIST_LOCAL_COMM_H_
