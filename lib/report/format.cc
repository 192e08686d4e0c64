#include "lib/report/format.h"

#include <cstdio>

namespace rp::report {

std::string Duration(int64_t ns) {
  char buf[32];
  const double v = static_cast<double>(ns);
  if (ns < 1000 && ns > -1000) std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  else if (ns < 1000000 && ns > -1000000) std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
  else if (ns < 1000000000 && ns > -1000000000) std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
  return buf;
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%5.1f%%", 100 * share);
  return buf;
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace rp::report
