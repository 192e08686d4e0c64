#include "collector/options.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace rp::collector {
namespace {

long EnvInt(const char* name, long fallback, long min, long max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < min || value > max) return fallback;
  return value;
}

// An invariant time-stamp counter ticks at a constant rate in every power
// state and is synchronised across cores: its ticks are a clock.
bool InvariantTsc() {
#if defined(__x86_64__)
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.compare(0, 5, "flags") != 0) continue;
    return line.find(" constant_tsc") != std::string::npos &&
           line.find(" nonstop_tsc") != std::string::npos;
  }
#endif
  return false;
}

}  // namespace

Options ReadOptions() {
  Options o;
  if (const char* dir = std::getenv("RP_DIR"); dir != nullptr && *dir != '\0') o.dir = dir;
  o.buffer_bytes = static_cast<size_t>(EnvInt("RP_BUFFER_KB", 1024, 16, 1 << 20)) << 10;
  o.sites = EnvInt("RP_SITES", 1, 0, 1) == 1;
  o.sample_hz = static_cast<int>(EnvInt("RP_SAMPLE_HZ", 200, 0, 10000));
  o.sample_depth = static_cast<int>(EnvInt("RP_SAMPLE_DEPTH", 48, 1, 512));
  o.clock_exchanges = static_cast<int>(EnvInt("RP_CLOCK_EXCHANGES", 8, 1, 1000));
  o.shared_clock = EnvInt("RP_SHARED_CLOCK", 1, 0, 1) == 1;
  o.online = EnvInt("RP_ONLINE", 0, 0, 1) == 1;
  o.trace = !o.online || EnvInt("RP_TRACE", 1, 0, 1) == 1;
  o.online_paths = static_cast<int>(EnvInt("RP_ONLINE_PATHS", 0, 0, 16));
  if (o.online_paths == 1) o.online_paths = 2;
  const char* select = std::getenv("RP_ONLINE_SELECT");
  o.online_topk = select != nullptr && std::strcmp(select, "topk") == 0;
  o.online_zeroing = EnvInt("RP_ONLINE_ZEROING", 0, 0, 1) == 1;
  const char* timer = std::getenv("RP_TIMER");
  o.timer_ticks = !o.online && !(timer != nullptr && std::strcmp(timer, "monotonic") == 0) && InvariantTsc();
  return o;
}

}  // namespace rp::collector
