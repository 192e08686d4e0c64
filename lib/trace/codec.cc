// LineDecoder: the direct scan of canonical lines first (canonical_scan.h),
// the validating simdjson decoder for every other line (json_decode.h).
#include "lib/trace/codec.h"

#include <string>

#include "lib/trace/canonical_scan.h"
#include "lib/trace/json_decode.h"

namespace rp::trace {

struct LineDecoder::Impl {
  internal::JsonDecoder json;
  std::string copy;
  bool scan = true;
  int64_t scanned = 0;

};

LineDecoder::LineDecoder(Path path) : impl_(std::make_unique<Impl>()) {
  impl_->scan = path == Path::kCanonicalFirst;
}
LineDecoder::~LineDecoder() = default;

int64_t LineDecoder::scanned() const { return impl_->scanned; }

Status LineDecoder::DecodeCopy(std::string_view text, Record* record) {
  if (impl_->scan && internal::ScanCanonical<false>(text, record) != 0) return ++impl_->scanned, OkStatus();
  impl_->copy.assign(text);
  impl_->copy.append(kDecodePadding, ' ');
  return impl_->json.Decode(std::string_view(impl_->copy.data(), text.size()), record);
}

Status LineDecoder::Decode(std::string_view text, Record* record) {
  if (impl_->scan && internal::ScanCanonical<false>(text, record) != 0) return ++impl_->scanned, OkStatus();
  return impl_->json.Decode(text, record);
}

size_t LineDecoder::DecodeLineAt(std::string_view rest, Record* record) {
  if (!impl_->scan) return 0;
  const size_t length = internal::ScanCanonical<true>(rest, record);
  impl_->scanned += length != 0;
  return length;
}

}  // namespace rp::trace
