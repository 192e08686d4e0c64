// Wall-clock sampling of the main thread's call stack (paper: diagnosis
// §measurement): a POSIX timer on CLOCK_MONOTONIC signals the thread `hz`
// times a second, whether it computes, sleeps or waits in a system call; the
// handler unwinds the stack with libunwind and hands a SampleFixed record to
// the sink. Samples taken while the thread is inside an MPI wrapper are only
// counted (MPI time is known exactly from the events).
//
// The sleep functions (sleep, usleep, nanosleep, clock_nanosleep) are
// wrapped so that a sample interrupting a sleep does not shorten it.
#ifndef RP_COLLECTOR_SAMPLER_H_
#define RP_COLLECTOR_SAMPLER_H_

#include <cstddef>
#include <cstdint>

namespace rp::collector {

// Receives one raw sample record; returns false if it had to drop it.
using SampleSink = bool (*)(const void* record, size_t size);

void StartSampler(int hz, int depth, SampleSink sink);
void StopSampler();  // async-signal-safe

struct SamplerCounts {
  int64_t samples = 0;  // written
  int64_t in_mpi = 0;   // skipped: inside MPI
  int64_t time = 0;     // timer units spent taking samples (and any buffer
                        // write one forced): the collector's own work
};
SamplerCounts SamplerTotals();

}  // namespace rp::collector

#endif  // RP_COLLECTOR_SAMPLER_H_
