// The collector's settings, read from the environment of each rank
// (rp-record sets them; a job script can set them by hand).
//   RP_DIR              directory for rank-<R>.rpraw files   (./rp-raw)
//   RP_BUFFER_KB        bytes buffered per rank before a write (1024)
//   RP_SITES            0 to omit call-site addresses         (1)
//   RP_SAMPLE_HZ        wall-clock samples per second, 0 off   (200)
//   RP_SAMPLE_DEPTH     frames kept per sample                 (48)
//   RP_CLOCK_EXCHANGES  ping-pongs per rank at init/finalize   (8)
//   RP_SHARED_CLOCK     0: measure every rank's clock, even where ranks
//                       share a host and boot (libfaketime, time
//                       namespaces)                            (1)
//   RP_TIMER            "tsc" or "monotonic"                   (tsc when the
//                       CPU's time-stamp counter is invariant; monotonic
//                       with RP_ONLINE, whose paths cross ranks in ns)
//   RP_ONLINE           1: the critical path computed in the run, written
//                       by rank 0 at MPI_Finalize (collector/online.h) (0)
//   RP_TRACE            0: with RP_ONLINE, record no events     (1)
//   RP_ONLINE_PATHS     k: with RP_ONLINE, k representative paths
//                       too (2..16; 0 none)                    (0)
//   RP_ONLINE_SELECT    "repr" or "topk": which k              (repr)
//   RP_ONLINE_ZEROING   1: with RP_ONLINE, critical path zeroing of
//                       every call site the path keeps too     (0)
#ifndef RP_COLLECTOR_OPTIONS_H_
#define RP_COLLECTOR_OPTIONS_H_

#include <string>

namespace rp::collector {

struct Options {
  std::string dir = "rp-raw";
  size_t buffer_bytes = size_t{1} << 20;
  bool sites = true;
  int sample_hz = 200;
  int sample_depth = 48;
  int clock_exchanges = 8;
  bool shared_clock = true;
  bool timer_ticks = false;
  bool online = false;
  int online_paths = 0;
  bool online_topk = false;
  bool online_zeroing = false;
  bool trace = true;
};

Options ReadOptions();

}  // namespace rp::collector

#endif  // RP_COLLECTOR_OPTIONS_H_
