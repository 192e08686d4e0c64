#include "lib/profile/system_code.h"

#include <array>

namespace rp::profile {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

bool IsSystemModule(std::string_view module) {
  if (module.empty()) return false;
  if (module.front() == '[') return true;  // [vdso], [vsyscall]
  const std::string_view name = BaseName(module);
  // The C library and its parts, the language runtimes, MPI and what MPI
  // libraries load to reach the network.
  static constexpr std::array<std::string_view, 32> kPrefixes = {
      "libc.so",     "libc-",       "libm.so",      "libm-",        "libmvec",      "libpthread",
      "librt.",      "librt-",      "libdl.",       "libdl-",       "ld-linux",     "ld64.so",
      "libstdc++",   "libgcc_s",    "libgfortran",  "libquadmath",  "libgomp",      "libmpi",
      "libopen-pal", "libopen-rte", "libopen-orted", "mca_",        "libpmix",      "libevent",
      "libhwloc",    "libucp",      "libucs",       "libuct",       "libfabric",    "libpsm",
      "libibverbs",  "libnuma"};
  for (std::string_view prefix : kPrefixes) {
    if (StartsWith(name, prefix)) return true;
  }
  return false;
}

bool IsSystemSource(std::string_view file) {
  return StartsWith(file, "/usr/include/") || StartsWith(file, "/usr/lib/gcc/") ||
         StartsWith(file, "/usr/local/include/");
}

}  // namespace rp::profile
