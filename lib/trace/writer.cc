#include "lib/trace/writer.h"

namespace rp::trace {

Expected<std::unique_ptr<Writer>> Writer::Open(const std::string& path,
                                               const OutputOptions& options) {
  RP_ASSIGN_OR_RETURN(std::unique_ptr<ByteSink> sink, OpenOutput(path, options));
  return std::make_unique<Writer>(std::move(sink));
}

Writer::Writer(std::unique_ptr<ByteSink> sink) : sink_(std::move(sink)) {
  buffer_.resize(kHeadroom);
}

Writer::~Writer() = default;

Status Writer::Flush() {
  if (used_ == 0) return OkStatus();
  bytes_written_ += used_;
  Status status = sink_->Write(std::string_view(buffer_.data(), used_));
  used_ = 0;
  return status;
}

Status Writer::Close() {
  if (closed_) return OkStatus();
  closed_ = true;
  RP_RETURN_IF_ERROR(Flush());
  return sink_->Close();
}

}  // namespace rp::trace
