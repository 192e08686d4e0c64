#include "lib/trace/json_out.h"

#include <cmath>

namespace rp::trace {
namespace {

// Length of the valid UTF-8 sequence starting at s[0], or 0 if invalid.
size_t Utf8SequenceLength(const unsigned char* s, size_t n) {
  const unsigned char c = s[0];
  size_t len;
  uint32_t min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (n < len) return 0;
  uint32_t cp = c & (0x7F >> len);
  for (size_t i = 1; i < len; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

void JsonBuffer::Real(double value) {
  if (!std::isfinite(value)) {
    Literal("null");
    return;
  }
  if (kCapacity - size_ < 32) Flush();
  size_ = std::to_chars(buffer_ + size_, buffer_ + kCapacity, value).ptr - buffer_;
}

void JsonBuffer::String(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  Char('"');
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t run = 0;  // start of the pending run of bytes needing no escape
  size_t i = 0;
  auto flush_run = [&](size_t upto) { Raw(text.data() + run, upto - run); };
  while (i < n) {
    const unsigned char c = s[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(s + i, n - i);
      if (len != 0) {
        i += len;
        continue;
      }
      flush_run(i);
      Literal("\xEF\xBF\xBD");  // U+FFFD replacement character
      run = ++i;
      continue;
    }
    flush_run(i);
    switch (c) {
      case '"': Literal("\\\""); break;
      case '\\': Literal("\\\\"); break;
      case '\n': Literal("\\n"); break;
      case '\r': Literal("\\r"); break;
      case '\t': Literal("\\t"); break;
      case '\b': Literal("\\b"); break;
      case '\f': Literal("\\f"); break;
      default: {
        const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        Raw(escape, sizeof escape);
      }
    }
    run = ++i;
  }
  flush_run(n);
  Char('"');
}

}  // namespace rp::trace
