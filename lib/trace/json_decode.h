// The validating decoder: simdjson's ondemand parser, one line at a time
// (on short records about twice as fast as building a DOM, even with the
// portable kernel). Every field is consumed and the end of the line
// checked, so the whole line is validated; errors name the field and the
// record. LineDecoder (codec.h) takes this path for every line the direct
// scan (canonical_scan.h) gives up on. Internal to lib/trace.
#ifndef RP_LIB_TRACE_JSON_DECODE_H_
#define RP_LIB_TRACE_JSON_DECODE_H_

#include <memory>
#include <string_view>

#include "lib/base/status.h"
#include "lib/trace/record.h"

namespace rp::trace::internal {

class JsonDecoder {
 public:
  JsonDecoder();
  ~JsonDecoder();
  // `text` must be followed by kDecodePadding readable bytes.
  Status Decode(std::string_view text, Record* record);

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

}  // namespace rp::trace::internal

#endif  // RP_LIB_TRACE_JSON_DECODE_H_
