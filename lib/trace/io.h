// Byte streams under the rp-trace reader and writer: files, stdin and
// stdout, with zstd detected on input by its magic number and applied on
// output on request. Decompression and compression stream in fixed-size
// chunks, so memory does not grow with the size of the trace; multi-frame
// zstd input (e.g. `cat a.zst b.zst`) reads as one stream.
//
//   RP_ASSIGN_OR_RETURN(auto in, rp::trace::OpenInput("run.ndjson.zst"));
//   char buf[1 << 16];
//   RP_ASSIGN_OR_RETURN(size_t n, in->Read(buf, sizeof buf));  // 0 at end
#ifndef RP_LIB_TRACE_IO_H_
#define RP_LIB_TRACE_IO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lib/base/status.h"

namespace rp::trace {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `capacity` bytes; 0 means end of input. A truncated or
  // corrupt zstd stream is an error here, not a silent end.
  virtual Expected<size_t> Read(char* buffer, size_t capacity) = 0;
  // Bytes consumed from the underlying file (compressed size for zstd).
  virtual uint64_t raw_bytes() const = 0;
  virtual bool compressed() const = 0;
  // The name used in messages: the path, or "<stdin>".
  virtual const std::string& name() const = 0;
};

// Opens `path`, or stdin for "-". Detects zstd by its magic number.
Expected<std::unique_ptr<ByteSource>> OpenInput(const std::string& path);

// An open file descriptor (not closed by the source) read from where it
// stands, named `name` in messages; zstd detected as for files.
Expected<std::unique_ptr<ByteSource>> OpenInputFd(int fd, std::string name);

// `bytes` as an input named `name` (plain NDJSON or zstd, detected as for
// files): for tests and callers that hold a trace in memory.
std::unique_ptr<ByteSource> MemoryInput(std::string name, std::string bytes);

// zstd level of -z output. On rp-trace NDJSON level 1 writes smaller files
// than zstd's usual default 3 (14.4 vs 16.6 bytes per halo record, 180 vs
// 198 KB for the demo's cpath stream) and compresses ~30% faster.
inline constexpr int kDefaultZstdLevel = 1;

struct OutputOptions {
  bool zstd = false;       // compress with zstd
  int zstd_level = kDefaultZstdLevel;  // 1..19
  // Threads that compress beside the caller (zstd's own workers; 0: the
  // caller compresses). The bytes written are the same for any value >= 1.
  int zstd_workers = 1;
  bool force = false;      // allow zstd to a terminal, overwrite nothing else
};

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Write(std::string_view bytes) = 0;
  // Flushes everything (ends the zstd frame) and closes the file.
  virtual Status Close() = 0;
  virtual const std::string& name() const = 0;
};

// Makes a pipe's buffer 4 MiB (else 1 MiB) when `fd` is a pipe.
void WidenPipe(int fd);

// Opens `path` for writing, or stdout for "-": a regular file is written
// beside it and renamed into place by ByteSink::Close() (output_file.h), so
// that an error leaves the previous file as it was. Refuses to write zstd
// to a terminal unless options.force.
Expected<std::unique_ptr<ByteSink>> OpenOutput(const std::string& path,
                                               const OutputOptions& options);

// Appends to *out (which must outlive the sink): for tests, and for
// callers that read back what a stage wrote.
std::unique_ptr<ByteSink> StringOutput(std::string* out, std::string name = "<memory>");

// True when `path` names zstd output by convention (ends in ".zst").
bool HasZstdSuffix(std::string_view path);

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_IO_H_
