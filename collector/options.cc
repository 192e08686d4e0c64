#include "collector/options.h"

#include <cstdlib>

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

}  // namespace

Options ReadOptions() {
  Options o;
  if (const char* dir = std::getenv("RP_DIR"); dir != nullptr && *dir != '\0') o.dir = dir;
  o.buffer_bytes = static_cast<size_t>(EnvInt("RP_BUFFER_KB", 1024, 16, 1 << 20)) << 10;
  o.sites = EnvInt("RP_SITES", 1, 0, 1) == 1;
  o.sample_hz = static_cast<int>(EnvInt("RP_SAMPLE_HZ", 200, 0, 10000));
  o.sample_depth = static_cast<int>(EnvInt("RP_SAMPLE_DEPTH", 48, 1, 512));
  o.clock_exchanges = static_cast<int>(EnvInt("RP_CLOCK_EXCHANGES", 8, 1, 1000));
  return o;
}

}  // namespace rp::collector
