#include "lib/trace/io.h"

#include "lib/trace/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace rp::trace {
namespace {

constexpr uint32_t kZstdMagic = 0xFD2FB528;  // little-endian frame magic

bool IsZstd(std::string_view head) {
  uint32_t magic = 0;
  if (head.size() < 4) return false;
  std::memcpy(&magic, head.data(), 4);
  return magic == kZstdMagic;
}

std::string Errno(const std::string& what, const std::string& name) {
  return name + ": " + what + ": " + std::strerror(errno);
}

// A file descriptor read with retries on EINTR; the first bytes can be
// peeked (for magic detection) and are then returned by Read().
class FdSource : public ByteSource {
 public:
  FdSource(int fd, std::string name, bool owned)
      : fd_(fd), name_(std::move(name)), owned_(owned) {}
  ~FdSource() override {
    if (owned_) ::close(fd_);
  }

  // Reads up to n bytes ahead without consuming them.
  Expected<std::string_view> Peek(size_t n) {
    while (peeked_.size() < n) {
      char buf[16];
      const ssize_t got = ::read(fd_, buf, n - peeked_.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return InputError(Errno("cannot read", name_));
      if (got == 0) break;
      peeked_.append(buf, got);
    }
    return std::string_view(peeked_);
  }

  Expected<size_t> Read(char* buffer, size_t capacity) override {
    if (peek_pos_ < peeked_.size()) {
      const size_t n = std::min(capacity, peeked_.size() - peek_pos_);
      std::memcpy(buffer, peeked_.data() + peek_pos_, n);
      peek_pos_ += n;
      raw_bytes_ += n;
      return n;
    }
    for (;;) {
      const ssize_t got = ::read(fd_, buffer, capacity);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return InputError(Errno("cannot read", name_));
      raw_bytes_ += got;
      return static_cast<size_t>(got);
    }
  }
  uint64_t raw_bytes() const override { return raw_bytes_; }
  bool compressed() const override { return false; }
  const std::string& name() const override { return name_; }

 private:
  int fd_;
  std::string name_;
  bool owned_;
  std::string peeked_;
  size_t peek_pos_ = 0;
  uint64_t raw_bytes_ = 0;
};

// Bytes held in memory.
class MemorySource : public ByteSource {
 public:
  MemorySource(std::string name, std::string bytes) : name_(std::move(name)), bytes_(std::move(bytes)) {}
  Expected<size_t> Read(char* buffer, size_t capacity) override {
    const size_t n = std::min(capacity, bytes_.size() - pos_);
    std::memcpy(buffer, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes() const override { return pos_; }
  bool compressed() const override { return false; }
  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  std::string bytes_;
  size_t pos_ = 0;
};

class ZstdSource : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> file)
      : file_(std::move(file)), in_buf_(ZSTD_DStreamInSize()) {
    stream_ = ZSTD_createDStream();
    ZSTD_initDStream(stream_);
  }
  ~ZstdSource() override { ZSTD_freeDStream(stream_); }

  Expected<size_t> Read(char* buffer, size_t capacity) override {
    ZSTD_outBuffer out{buffer, capacity, 0};
    while (out.pos == 0) {
      // A full output buffer may leave decoded bytes inside zstd: drain them
      // before asking the file for more.
      if (in_.pos == in_.size && !output_pending_) {
        if (eof_) break;
        RP_ASSIGN_OR_RETURN(size_t got, file_->Read(in_buf_.data(), in_buf_.size()));
        if (got == 0) {
          eof_ = true;
          break;
        }
        in_ = ZSTD_inBuffer{in_buf_.data(), got, 0};
      }
      const size_t hint = ZSTD_decompressStream(stream_, &out, &in_);
      if (ZSTD_isError(hint)) {
        return InputError(name() + ": corrupt zstd data near byte " +
                          std::to_string(file_->raw_bytes() - (in_.size - in_.pos)) +
                          ": " + ZSTD_getErrorName(hint));
      }
      frame_open_ = hint != 0;
      output_pending_ = out.pos == out.size;
    }
    if (out.pos == 0 && eof_ && frame_open_) {
      return InputError(name() + ": truncated zstd stream (the last frame ends early; "
                        "was the file still being written?)");
    }
    return out.pos;
  }
  uint64_t raw_bytes() const override { return file_->raw_bytes(); }
  bool compressed() const override { return true; }
  const std::string& name() const override { return file_->name(); }

 private:
  std::unique_ptr<ByteSource> file_;
  ZSTD_DStream* stream_;
  std::vector<char> in_buf_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  bool eof_ = false;
  bool frame_open_ = false;
  bool output_pending_ = false;
};

class ZstdSink : public ByteSink {
 public:
  ZstdSink(std::unique_ptr<ByteSink> file, const OutputOptions& options)
      : file_(std::move(file)), out_buf_(ZSTD_CStreamOutSize()) {
    stream_ = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(stream_, ZSTD_c_compressionLevel, options.zstd_level);
    ZSTD_CCtx_setParameter(stream_, ZSTD_c_checksumFlag, 1);
    // Compressing on a worker overlaps it with the analysis; a libzstd
    // built without threads refuses, and the caller compresses.
    // Jobs of 1 MiB (zstd's smallest is 512 KiB) keep its buffers small.
    if (options.zstd_workers > 0 &&
        !ZSTD_isError(ZSTD_CCtx_setParameter(stream_, ZSTD_c_nbWorkers, options.zstd_workers))) {
      ZSTD_CCtx_setParameter(stream_, ZSTD_c_jobSize, 1 << 20);
    }
  }
  ~ZstdSink() override { ZSTD_freeCCtx(stream_); }

  Status Write(std::string_view bytes) override {
    ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
    while (in.pos < in.size) {
      RP_RETURN_IF_ERROR(Step(&in, ZSTD_e_continue));
    }
    return OkStatus();
  }
  Status Close() override {
    if (closed_) return OkStatus();
    closed_ = true;
    ZSTD_inBuffer in{nullptr, 0, 0};
    for (;;) {
      size_t remaining = 0;
      RP_RETURN_IF_ERROR(Step(&in, ZSTD_e_end, &remaining));
      if (remaining == 0) break;
    }
    return file_->Close();
  }
  const std::string& name() const override { return file_->name(); }

 private:
  Status Step(ZSTD_inBuffer* in, ZSTD_EndDirective mode, size_t* remaining = nullptr) {
    ZSTD_outBuffer out{out_buf_.data(), out_buf_.size(), 0};
    const size_t result = ZSTD_compressStream2(stream_, &out, in, mode);
    if (ZSTD_isError(result)) {
      return InputError(name() + ": zstd compression failed: " + ZSTD_getErrorName(result));
    }
    if (remaining) *remaining = result;
    return file_->Write(std::string_view(out_buf_.data(), out.pos));
  }

  std::unique_ptr<ByteSink> file_;
  ZSTD_CCtx* stream_;
  std::vector<char> out_buf_;
  bool closed_ = false;
};

}  // namespace

namespace {

// The file itself, or zstd decompressing it when it starts with zstd's magic.
Expected<std::unique_ptr<ByteSource>> Detect(std::unique_ptr<FdSource> file) {
  RP_ASSIGN_OR_RETURN(std::string_view head, file->Peek(4));
  if (IsZstd(head)) return std::unique_ptr<ByteSource>(new ZstdSource(std::move(file)));
  return std::unique_ptr<ByteSource>(std::move(file));
}

}  // namespace

void WidenPipe(int fd) {
  struct stat st;
  // A pipe of 64 KiB (Linux's default) makes the stages of a pipeline take
  // turns at every few lines; 4 MiB (or 1 MiB, the default limit for
  // unprivileged processes) lets them run side by side: the 4-stage
  // pipeline on 2 cores takes 11 s instead of 19 (README, Performance).
  if (::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && ::fcntl(fd, F_SETPIPE_SZ, 4 << 20) < 0) {
    (void)::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  }
}

Expected<std::unique_ptr<ByteSource>> OpenInput(const std::string& path) {
  if (path == "-") {
    WidenPipe(STDIN_FILENO);
    return OpenInputFd(STDIN_FILENO, "<stdin>");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InputError(Errno("cannot open", path));
  return Detect(std::make_unique<FdSource>(fd, path, true));
}

Expected<std::unique_ptr<ByteSource>> OpenInputFd(int fd, std::string name) {
  return Detect(std::make_unique<FdSource>(fd, std::move(name), false));
}

std::unique_ptr<ByteSource> MemoryInput(std::string name, std::string bytes) {
  const bool zstd = IsZstd(bytes);
  auto memory = std::make_unique<MemorySource>(std::move(name), std::move(bytes));
  if (zstd) return std::make_unique<ZstdSource>(std::move(memory));
  return memory;
}

namespace {

class StringSink : public ByteSink {
 public:
  StringSink(std::string* out, std::string name) : out_(out), name_(std::move(name)) {}
  Status Write(std::string_view bytes) override {
    out_->append(bytes);
    return OkStatus();
  }
  Status Close() override { return OkStatus(); }
  const std::string& name() const override { return name_; }

 private:
  std::string* out_;
  std::string name_;
};

}  // namespace

std::unique_ptr<ByteSink> StringOutput(std::string* out, std::string name) {
  return std::make_unique<StringSink>(out, std::move(name));
}

bool HasZstdSuffix(std::string_view path) {
  return path.size() >= 4 && path.substr(path.size() - 4) == ".zst";
}

Expected<std::unique_ptr<ByteSink>> OpenOutput(const std::string& path,
                                               const OutputOptions& options) {
  if (path == "-" && options.zstd && !options.force && ::isatty(STDOUT_FILENO)) {
    return InputError("refusing to write zstd data to a terminal (use -o FILE, a pipe, or -f)");
  }
  if (path == "-") WidenPipe(STDOUT_FILENO);
  RP_ASSIGN_OR_RETURN(std::unique_ptr<ByteSink> file, OpenOutputFile(path));
  if (!options.zstd) return file;
  return std::unique_ptr<ByteSink>(new ZstdSink(std::move(file), options));
}

}  // namespace rp::trace
