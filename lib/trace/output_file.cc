#include "lib/trace/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace rp::trace {
namespace {

std::string Errno(const std::string& what, const std::string& name) {
  return name + ": " + what + ": " + std::strerror(errno);
}

// Temporary files not yet renamed into place, for RemoveTemporaryOutputs:
// a signal handler may read them at any time, so the slots are atomic and
// a path is taken out of its slot before its string is freed. A tool
// writes one output at a time; more than kSlots are simply not tracked.
constexpr int kSlots = 8;
std::atomic<const char*> g_temporaries[kSlots];

void Track(const char* path) {
  for (auto& slot : g_temporaries) {
    const char* empty = nullptr;
    if (slot.compare_exchange_strong(empty, path)) return;
  }
}

void Untrack(const char* path) {
  for (auto& slot : g_temporaries) {
    const char* expected = path;
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

class FdSink : public ByteSink {
 public:
  FdSink(int fd, std::string name, bool owned) : fd_(fd), name_(std::move(name)), owned_(owned) {}
  ~FdSink() override {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  Status Write(std::string_view bytes) override {
    while (!bytes.empty()) {
      const ssize_t put = ::write(fd_, bytes.data(), bytes.size());
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) return InputError(Errno("cannot write", name_));
      bytes.remove_prefix(put);
    }
    return OkStatus();
  }
  Status Close() override {
    if (owned_ && fd_ >= 0) {
      const int fd = fd_;
      fd_ = -1;
      if (::close(fd) != 0) return InputError(Errno("cannot close", name_));
    }
    return OkStatus();
  }
  const std::string& name() const override { return name_; }

 private:
  int fd_;
  std::string name_;
  bool owned_;
};

// Writes to `temporary` and renames it to `target` on Close(); removes it
// when destroyed before.
class RenamingSink : public ByteSink {
 public:
  RenamingSink(int fd, std::string name, std::string temporary, std::string target)
      : file_(fd, std::move(name), true), temporary_(std::move(temporary)), target_(std::move(target)) {
    Track(temporary_.c_str());
  }
  ~RenamingSink() override {
    if (!renamed_) Discard();
  }
  Status Write(std::string_view bytes) override { return file_.Write(bytes); }
  Status Close() override {
    if (renamed_) return OkStatus();
    Status closed = file_.Close();
    if (!closed.ok()) return closed;
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
      return InputError(Errno("cannot rename " + temporary_ + " to it", file_.name()));
    }
    renamed_ = true;
    Untrack(temporary_.c_str());
    return OkStatus();
  }
  const std::string& name() const override { return file_.name(); }

 private:
  void Discard() {
    ::unlink(temporary_.c_str());  // first: a signal in between finds it tracked
    Untrack(temporary_.c_str());
  }
  FdSink file_;
  std::string temporary_;
  std::string target_;
  bool renamed_ = false;
};

// What a new file gets: 0666 less the umask, as open(O_CREAT) would give.
mode_t NewFileMode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

// The descriptor a path names outright ("/dev/stdout", "/dev/fd/3",
// "/proc/self/fd/3"), -1 for other paths: such outputs are written through
// the descriptor as it stands (appending when the shell said >>), never
// renamed over.
int NamedDescriptor(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const size_t n = std::strlen(prefix);
    if (path.compare(0, n, prefix) != 0 || path.size() == n) continue;
    char* end = nullptr;
    const long fd = std::strtol(path.c_str() + n, &end, 10);
    if (*end == '\0' && fd >= 0 && fd <= INT_MAX) return static_cast<int>(fd);
  }
  return -1;
}

// The file a symbolic link finally names, also when it does not exist yet.
std::string FollowLinks(const std::string& path) {
  std::string target = path;
  for (int hop = 0; hop < 40; ++hop) {
    char link[PATH_MAX];
    const ssize_t n = ::readlink(target.c_str(), link, sizeof link - 1);
    if (n <= 0) break;
    link[n] = '\0';
    const size_t slash = target.rfind('/');
    target = link[0] == '/' || slash == std::string::npos ? std::string(link) : target.substr(0, slash + 1) + link;
  }
  return target;
}

}  // namespace

Expected<std::unique_ptr<ByteSink>> OpenOutputFile(const std::string& path) {
  if (path == "-") return std::unique_ptr<ByteSink>(new FdSink(STDOUT_FILENO, "<stdout>", false));
  if (const int fd = NamedDescriptor(path); fd >= 0) return std::unique_ptr<ByteSink>(new FdSink(fd, path, false));
  struct stat st {};
  mode_t mode = NewFileMode();
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return InputError(path + ": is a directory");
    if (!S_ISREG(st.st_mode)) {
      // A device, FIFO or socket: nothing to keep, nothing to rename over.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return InputError(Errno("cannot open", path));
      return std::unique_ptr<ByteSink>(new FdSink(fd, path, true));
    }
    mode = st.st_mode & 0777;
    if (::access(path.c_str(), W_OK) != 0) return InputError(Errno("cannot write", path));
  }
  // Replace the file a symbolic link names, not the link.
  const std::string target = FollowLinks(path);
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string temporary = dir + "." + base + ".rp-XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) {
    // A file one may write in a folder one may not: written where it is,
    // as it must be (an error then leaves it partial).
    const int in_place = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (in_place >= 0) return std::unique_ptr<ByteSink>(new FdSink(in_place, path, true));
    return InputError(Errno("cannot create", path));
  }
  ::fchmod(fd, mode);
  return std::unique_ptr<ByteSink>(new RenamingSink(fd, path, std::move(temporary), target));
}

void RemoveTemporaryOutputs() {
  for (auto& slot : g_temporaries) {
    const char* path = slot.exchange(nullptr);
    if (path != nullptr) ::unlink(path);
  }
}

Status CheckOutputIsNotInput(const std::string& output, const std::vector<std::string>& inputs) {
  struct stat out {};
  if (output == "-" ? ::fstat(STDOUT_FILENO, &out) != 0 : ::stat(output.c_str(), &out) != 0) return OkStatus();
  // Devices (/dev/null in and out) and pipes are not overwritten by writing.
  if (!S_ISREG(out.st_mode)) return OkStatus();
  for (const std::string& input : inputs) {
    struct stat in {};
    if (input == "-" ? ::fstat(STDIN_FILENO, &in) != 0 : ::stat(input.c_str(), &in) != 0) continue;
    if (in.st_dev != out.st_dev || in.st_ino != out.st_ino) continue;
    const std::string what = output == input && output != "-"
                                 ? output + " is both input and output"
                                 : (output == "-" ? "standard output" : output) + " is the same file as " +
                                       (input == "-" ? "standard input" : "the input " + input);
    return InputError(what + ": writing it would lose the trace before it is read; write to another file");
  }
  return OkStatus();
}

}  // namespace rp::trace
