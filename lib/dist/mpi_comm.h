// dist::Comm over MPI_COMM_WORLD, for the stages' -mpi binaries (the
// other rp binaries do not link MPI). MpiSession initialises MPI and
// finalises it; a process that fails before the others' exchange returns
// its error through dist::Fail, then finalises.
#ifndef RP_LIB_DIST_MPI_COMM_H_
#define RP_LIB_DIST_MPI_COMM_H_

#include <memory>

#include "lib/dist/comm.h"

namespace rp::dist {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  Comm& comm() { return *comm_; }

 private:
  std::unique_ptr<Comm> comm_;
};

}  // namespace rp::dist

#endif  // RP_LIB_DIST_MPI_COMM_H_
