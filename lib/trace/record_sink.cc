#include "lib/trace/record_sink.h"

#include "lib/trace/codec.h"

namespace rp::trace {
namespace {

class Sink : public ByteSink {
 public:
  Sink(std::string name, std::function<void(const Record&)> take) : name_(std::move(name)), take_(std::move(take)) {}
  Status Write(std::string_view bytes) override {
    pending_.append(bytes);
    size_t begin = 0;
    for (size_t end; (end = pending_.find('\n', begin)) != std::string::npos; begin = end + 1) {
      ++line_;
      Status s = decoder_.DecodeCopy(std::string_view(pending_).substr(begin, end - begin), &record_);
      if (!s.ok()) return InputError(name_ + ":" + std::to_string(line_) + ": " + s.message());
      take_(record_);
    }
    pending_.erase(0, begin);
    return OkStatus();
  }
  Status Close() override {
    if (!pending_.empty()) return InputError(name_ + ": ends inside a record");
    return OkStatus();
  }
  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  std::function<void(const Record&)> take_;
  std::string pending_;
  int64_t line_ = 0;
  LineDecoder decoder_;
  Record record_;
};

}  // namespace

std::unique_ptr<ByteSink> RecordSink(std::string name, std::function<void(const Record&)> take) {
  return std::make_unique<Sink>(std::move(name), std::move(take));
}

}  // namespace rp::trace
