// Test helpers: a hand-written trace as one window.
#ifndef RP_LIB_WINDOW_TESTING_H_
#define RP_LIB_WINDOW_TESTING_H_

#include <string>
#include <vector>

#include "lib/window/window.h"

namespace rp::window {

// Lines for a trace of `ranks` ranks: header and world communicator.
std::string TestHeader(int ranks);
// One mpi record line on MPI_COMM_WORLD unless `extra` names another comm.
std::string TestMpi(int rank, int seq, const std::string& fn, int64_t t0, int64_t t1,
                    const std::string& extra = "");

// Reads `text` (a whole trace) and returns its first window and dictionary.
struct TestTrace {
  Dictionary dict;
  Window window;
};
TestTrace ReadOneWindow(const std::string& text);
// Every window of `text`.
struct TestWindows {
  Dictionary dict;
  std::vector<Window> windows;
};
TestWindows ReadWindows(const std::string& text);

}  // namespace rp::window

#endif  // RP_LIB_WINDOW_TESTING_H_
