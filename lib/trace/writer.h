// Buffered writer of rp-trace records to a file or stdout, optionally zstd.
//
//   RP_ASSIGN_OR_RETURN(auto writer, rp::trace::Writer::Open("-", {}));
//   RP_RETURN_IF_ERROR(writer->Write(header));     // any record struct
//   RP_RETURN_IF_ERROR(writer->WriteRaw(rec.line)); // pass a line through
//   RP_RETURN_IF_ERROR(writer->WriteEdited(RecordType::kMpi, rec.line, edits));
//   RP_RETURN_IF_ERROR(writer->WriteSpliced(rec.line, span_edits));  // canonical lines
//   RP_RETURN_IF_ERROR(writer->Close());
#ifndef RP_LIB_TRACE_WRITER_H_
#define RP_LIB_TRACE_WRITER_H_

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "lib/trace/codec.h"
#include "lib/trace/edit.h"
#include "lib/trace/io.h"

namespace rp::trace {

class Writer {
 public:
  static Expected<std::unique_ptr<Writer>> Open(const std::string& path,
                                                const OutputOptions& options);
  explicit Writer(std::unique_ptr<ByteSink> sink);
  ~Writer();

  template <typename R>
  Status Write(const R& record) {
    encoded_.clear();
    Encode(record, &encoded_);
    return WriteText(encoded_);
  }
  // Writes a line as it is (a newline is added).
  Status WriteRaw(std::string_view line) {
    char* at = Room(line.size() + 1);
    std::memcpy(at, line.data(), line.size());
    at[line.size()] = '\n';
    return Commit(at + line.size() + 1);
  }
  // Writes a line with some integer fields changed (see edit.h).
  Status WriteEdited(RecordType type, std::string_view line, std::span<const IntEdit> edits) {
    return Commit(EditInts(type, line, edits, Room(MostEditedSize(line, edits))));
  }
  // Writes a canonical line with edits at places the decoder found (edit.h).
  Status WriteSpliced(std::string_view line, std::span<const SpanEdit> edits) {
    return Commit(EditSpans(line, edits, Room(MostEditedSize(line, edits))));
  }
  // Writes text that is not a record (reports); no newline is added.
  Status WriteText(std::string_view text) {
    char* at = Room(text.size());
    std::memcpy(at, text.data(), text.size());
    return Commit(at + text.size());
  }
  Status Flush();
  Status Close();
  uint64_t bytes_written() const { return bytes_written_ + used_; }

 private:
  // Text is written straight into buffer_, which keeps its size; the first
  // used_ bytes are the text. Room(n): where n more bytes may go. It starts
  // small and doubles up to the flush size and its headroom, so that a
  // writer of a few lines (a window's records, into a string) does not
  // clear a megabyte.
  char* Room(size_t n) {
    if (n > buffer_.size() - used_) buffer_.resize(std::max(used_ + n, std::min(2 * buffer_.size(), kFlushAt + kHeadroom)));
    return buffer_.data() + used_;
  }
  Status Commit(char* end) {
    used_ = static_cast<size_t>(end - buffer_.data());
    return used_ >= kFlushAt ? Flush() : OkStatus();
  }
  static constexpr size_t kFlushAt = size_t{1} << 20, kHeadroom = size_t{1} << 16;

  std::unique_ptr<ByteSink> sink_;
  std::string buffer_;
  size_t used_ = 0;
  std::string encoded_;  // Write's record, encoded
  uint64_t bytes_written_ = 0;
  bool closed_ = false;
};

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_WRITER_H_
