#include "collector/sampler.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "collector/raw_format.h"
#include "collector/runtime.h"

namespace rp::collector {
namespace {

constexpr int kSignal = SIGPROF;
constexpr int kMaxDepth = 512;

std::atomic<bool> g_active{false};
timer_t g_timer;
bool g_timer_made = false;
SampleSink g_sink = nullptr;
int g_depth = 48;
pid_t g_thread = 0;
std::atomic<int64_t> g_samples{0}, g_in_mpi{0}, g_time{0};
// Bumped by every sample on the sampled thread, so a sleep wrapper can tell
// that its EINTR came from us.
thread_local volatile int64_t t_ticks = 0;

struct SampleBuffer {
  raw::SampleFixed fixed;
  uint64_t frames[kMaxDepth];
};

void OnSample(int, siginfo_t*, void* context) {
  if (!g_active.load(std::memory_order_relaxed) || syscall(SYS_gettid) != g_thread) return;
  const int saved_errno = errno;
  t_ticks = t_ticks + 1;
  const int overrun = timer_getoverrun(g_timer);  // async-signal-safe
  if (t_depth > 0) {
    g_in_mpi.fetch_add(1, std::memory_order_relaxed);
    errno = saved_errno;
    return;
  }
  const int64_t start = Now();
  SampleBuffer sample;
  unw_cursor_t cursor;
  uint32_t n = 0;
  if (unw_init_local2(&cursor, static_cast<unw_context_t*>(context), UNW_INIT_SIGNAL_FRAME) == 0) {
    do {
      unw_word_t ip = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
      // The interrupted instruction itself, then return addresses: +1 on the
      // first makes "address - 1 is inside the caller's line" hold for all.
      sample.frames[n] = n == 0 ? ip + 1 : ip;
      ++n;
    } while (n < static_cast<uint32_t>(g_depth) && unw_step(&cursor) > 0);
  }
  const uint32_t size = raw::Align8(sizeof(raw::SampleFixed) + 8 * n);
  sample.fixed.h = {raw::kSample, 0, size};
  sample.fixed.depth = n;
  sample.fixed.overrun = overrun > 0 ? static_cast<uint32_t>(overrun) : 0;
  sample.fixed.t = Now();
  if (g_sink(&sample, size)) g_samples.fetch_add(1, std::memory_order_relaxed);
  g_time.fetch_add(Now() - start, std::memory_order_relaxed);
  errno = saved_errno;
}

template <typename F>
F Real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// Sleeps until `deadline` on CLOCK_MONOTONIC, restarting after our samples.
// Returns 0, or EINTR when another signal interrupted it.
int SleepUntil(const timespec& deadline) {
  using ClockNanosleep = int (*)(clockid_t, int, const timespec*, timespec*);
  static ClockNanosleep real = Real<ClockNanosleep>("clock_nanosleep");
  for (;;) {
    const int64_t ticks = t_ticks;
    const int rc = real(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr);
    if (rc != EINTR || t_ticks == ticks) return rc;
  }
}

timespec Add(timespec a, const timespec& b) {
  a.tv_sec += b.tv_sec;
  a.tv_nsec += b.tv_nsec;
  if (a.tv_nsec >= 1'000'000'000) {
    a.tv_nsec -= 1'000'000'000;
    ++a.tv_sec;
  }
  return a;
}

timespec Remaining(const timespec& deadline) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t left = (deadline.tv_sec - now.tv_sec) * 1'000'000'000LL + deadline.tv_nsec - now.tv_nsec;
  if (left < 0) left = 0;
  return timespec{static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
}

// A relative sleep of `duration`, whole unless another signal interrupts it.
int SleepFor(const timespec& duration, timespec* remaining) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const timespec deadline = Add(now, duration);
  const int rc = SleepUntil(deadline);
  if (rc == EINTR && remaining != nullptr) *remaining = Remaining(deadline);
  return rc;
}

bool Sampling() { return g_active.load(std::memory_order_relaxed); }

}  // namespace

void StartSampler(int hz, int depth, SampleSink sink) {
  g_sink = sink;
  g_depth = depth < kMaxDepth ? depth : kMaxDepth;
  g_thread = static_cast<pid_t>(syscall(SYS_gettid));
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);

  struct sigaction action {};
  action.sa_sigaction = OnSample;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(kSignal, &action, nullptr);

  sigevent event {};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = kSignal;
  event._sigev_un._tid = g_thread;
  if (timer_create(CLOCK_MONOTONIC, &event, &g_timer) != 0) return;
  g_timer_made = true;
  const long period_ns = 1'000'000'000L / hz;
  itimerspec spec {};
  spec.it_interval = timespec{period_ns / 1'000'000'000L, period_ns % 1'000'000'000L};
  spec.it_value = spec.it_interval;
  g_active.store(true);
  timer_settime(g_timer, 0, &spec, nullptr);
}

void StopSampler() {
  if (!g_active.exchange(false)) return;
  if (g_timer_made) {
    timer_delete(g_timer);
    g_timer_made = false;
  }
}

SamplerCounts SamplerTotals() { return SamplerCounts{g_samples.load(), g_in_mpi.load(), g_time.load()}; }

}  // namespace rp::collector

// --- sleep wrappers -----------------------------------------------------------
using rp::collector::Sampling;

extern "C" __attribute__((visibility("default"))) int nanosleep(const timespec* duration, timespec* remaining) {
  using Fn = int (*)(const timespec*, timespec*);
  static Fn real = rp::collector::Real<Fn>("nanosleep");
  if (!Sampling() || duration == nullptr) return real(duration, remaining);
  const int rc = rp::collector::SleepFor(*duration, remaining);
  if (rc == 0) return 0;
  errno = rc;
  return -1;
}

extern "C" __attribute__((visibility("default"))) int clock_nanosleep(clockid_t clock, int flags, const timespec* request,
                               timespec* remaining) {
  using Fn = int (*)(clockid_t, int, const timespec*, timespec*);
  static Fn real = rp::collector::Real<Fn>("clock_nanosleep");
  if (!Sampling() || request == nullptr || clock != CLOCK_MONOTONIC) {
    return real(clock, flags, request, remaining);
  }
  if (flags & TIMER_ABSTIME) return rp::collector::SleepUntil(*request);
  return rp::collector::SleepFor(*request, remaining);
}

extern "C" __attribute__((visibility("default"))) int usleep(useconds_t microseconds) {
  using Fn = int (*)(useconds_t);
  static Fn real = rp::collector::Real<Fn>("usleep");
  if (!Sampling()) return real(microseconds);
  const timespec duration{static_cast<time_t>(microseconds / 1'000'000),
                          static_cast<long>(microseconds % 1'000'000) * 1000};
  const int rc = rp::collector::SleepFor(duration, nullptr);
  if (rc == 0) return 0;
  errno = rc;
  return -1;
}

extern "C" __attribute__((visibility("default"))) unsigned int sleep(unsigned int seconds) {
  using Fn = unsigned int (*)(unsigned int);
  static Fn real = rp::collector::Real<Fn>("sleep");
  if (!Sampling()) return real(seconds);
  timespec remaining{0, 0};
  const int rc = rp::collector::SleepFor(timespec{static_cast<time_t>(seconds), 0}, &remaining);
  return rc == 0 ? 0 : static_cast<unsigned int>(remaining.tv_sec + (remaining.tv_nsec > 0));
}
