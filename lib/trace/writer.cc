#include "lib/trace/writer.h"

namespace rp::trace {

Expected<std::unique_ptr<Writer>> Writer::Open(const std::string& path,
                                               const OutputOptions& options) {
  RP_ASSIGN_OR_RETURN(std::unique_ptr<ByteSink> sink, OpenOutput(path, options));
  return std::make_unique<Writer>(std::move(sink));
}

Writer::Writer(std::unique_ptr<ByteSink> sink) : sink_(std::move(sink)) {
  buffer_.reserve(kFlushAt + (size_t{1} << 16));
}

Writer::~Writer() = default;

Status Writer::Flush() {
  if (buffer_.empty()) return OkStatus();
  bytes_written_ += buffer_.size();
  Status status = sink_->Write(buffer_);
  buffer_.clear();
  return status;
}

Status Writer::Close() {
  if (closed_) return OkStatus();
  closed_ = true;
  RP_RETURN_IF_ERROR(Flush());
  return sink_->Close();
}

}  // namespace rp::trace
