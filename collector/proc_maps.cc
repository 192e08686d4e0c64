#include "collector/proc_maps.h"

#include <fcntl.h>
#include <unistd.h>

namespace rp::collector {

namespace {

std::string ReadProcFile(const char* path) {
  std::string all;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return all;
  char buf[8192];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got <= 0) break;
    all.append(buf, got);
  }
  ::close(fd);
  return all;
}

}  // namespace

std::string CommandLine() { return ReadProcFile("/proc/self/cmdline"); }

std::string ExecutableMappings() {
  const std::string all = ReadProcFile("/proc/self/maps");
  std::string kept;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    const std::string_view line(all.data() + start, end - start);
    // "start-end perms offset dev inode path": keep executable, file-backed.
    const size_t perms = line.find(' ');
    if (perms != std::string_view::npos && line.size() > perms + 3 && line[perms + 3] == 'x' &&
        line.find('/') != std::string_view::npos) {
      kept.append(line);
      kept.push_back('\n');
    }
    start = end + 1;
  }
  return kept;
}

}  // namespace rp::collector
