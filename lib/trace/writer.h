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
    Encode(record, &buffer_);
    return MaybeFlush();
  }
  // Writes a line as it is (a newline is added).
  Status WriteRaw(std::string_view line) {
    buffer_.append(line);
    buffer_.push_back('\n');
    return MaybeFlush();
  }
  // Writes a line with some integer fields changed (see edit.h).
  Status WriteEdited(RecordType type, std::string_view line, std::span<const IntEdit> edits) {
    EditInts(type, line, edits, &buffer_);
    return MaybeFlush();
  }
  // Writes a canonical line with edits at places the decoder found (edit.h).
  Status WriteSpliced(std::string_view line, std::span<const SpanEdit> edits) {
    EditSpans(line, edits, &buffer_);
    return MaybeFlush();
  }
  // Writes text that is not a record (reports); no newline is added.
  Status WriteText(std::string_view text) {
    buffer_.append(text);
    return MaybeFlush();
  }
  Status Flush();
  Status Close();
  uint64_t bytes_written() const { return bytes_written_ + buffer_.size(); }

 private:
  Status MaybeFlush() { return buffer_.size() >= kFlushAt ? Flush() : OkStatus(); }
  static constexpr size_t kFlushAt = size_t{1} << 20;

  std::unique_ptr<ByteSink> sink_;
  std::string buffer_;
  uint64_t bytes_written_ = 0;
  bool closed_ = false;
};

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_WRITER_H_
