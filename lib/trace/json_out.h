// Appending JSON values to a string: the small writer behind every rp-trace
// line. Output is deterministic: integers in decimal, reals in the shortest
// form that reads back exactly, strings escaped per RFC 8259 with invalid
// UTF-8 replaced by U+FFFD, so every line written is valid JSON.
//
// JsonBuffer stages a line in a small stack buffer so that encoding a
// record costs one or two appends to the output string instead of one per
// key and value:
//   JsonBuffer json(&line);
//   json.Literal("{\"id\":");
//   json.Int(42);
//   json.Char('}');
//   // flushed to `line` when `json` goes out of scope
#ifndef RP_LIB_TRACE_JSON_OUT_H_
#define RP_LIB_TRACE_JSON_OUT_H_

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace rp::trace {

// The eight decimal digits of n < 10^8, as ASCII in a little-endian word:
// split into halves of four, then two, then one digit per lane, each split
// a multiply and shift (x * 10486 >> 20 is x / 100 for x < 10^4, x * 103
// >> 10 is x / 10 for x < 100).
inline uint64_t EightDigitsAscii(uint32_t n) {
  uint64_t x = (n / 10000) | (uint64_t{n % 10000} << 32);
  uint64_t q = ((x * 10486) >> 20) & 0x0000007F0000007F;
  x = q | ((x - q * 100) << 16);
  q = ((x * 103) >> 10) & 0x000F000F000F000F;
  x = q | ((x - q * 10) << 8);
  return x + 0x3030303030303030;
}

// Writes `value` in decimal at `out` (room for 20 bytes) and returns the
// end: the text of std::to_chars. Up to 16 digits (every nanosecond time
// stamp) are formed in words of eight: the leading zeros of the first word
// are counted and shifted out, not searched for digit by digit.
inline char* WriteInt(char* out, int64_t value) {
  uint64_t v = static_cast<uint64_t>(value);
  if (value < 0) {
    *out++ = '-';
    v = 0 - v;
  }
  if (v >= 10000000000000000) return std::to_chars(out, out + 20, v).ptr;
  // The first word's digits, without its leading zeros (one digit for 0).
  auto head = [&out](uint32_t n) {
    const uint64_t word = EightDigitsAscii(n);
    const int zeros = n == 0 ? 7 : std::countr_zero(word ^ 0x3030303030303030) / 8;
    const uint64_t digits = word >> (8 * zeros);
    std::memcpy(out, &digits, 8);  // the bytes past the digits are overwritten or not counted
    out += 8 - zeros;
  };
  if (v < 100000000) {
    head(static_cast<uint32_t>(v));
    return out;
  }
  head(static_cast<uint32_t>(v / 100000000));
  const uint64_t low = EightDigitsAscii(static_cast<uint32_t>(v % 100000000));
  std::memcpy(out, &low, 8);
  return out + 8;
}

class JsonBuffer {
 public:
  explicit JsonBuffer(std::string* out) : out_(out) {}
  ~JsonBuffer() { Flush(); }
  JsonBuffer(const JsonBuffer&) = delete;
  JsonBuffer& operator=(const JsonBuffer&) = delete;

  // A string literal written as is (its length is known at compile time).
  template <size_t N>
  void Literal(const char (&text)[N]) {
    Raw(text, N - 1);
  }
  void Raw(const char* data, size_t n) {
    if (n > kCapacity - size_) {
      Flush();
      if (n > kCapacity) {
        out_->append(data, n);
        return;
      }
    }
    std::memcpy(buffer_ + size_, data, n);
    size_ += n;
  }
  void Char(char c) {
    if (size_ == kCapacity) Flush();
    buffer_[size_++] = c;
  }
  void Int(int64_t value) {
    if (kCapacity - size_ < 24) Flush();
    size_ = WriteInt(buffer_ + size_, value) - buffer_;
  }
  void Bool(bool value) {
    if (value) Literal("true");
    else Literal("false");
  }
  // Non-finite values have no JSON form; they are written as null.
  void Real(double value);
  // `text` as a quoted, escaped JSON string.
  void String(std::string_view text);

  void Flush() {
    out_->append(buffer_, size_);
    size_ = 0;
  }

 private:
  static constexpr size_t kCapacity = 480;
  std::string* out_;
  size_t size_ = 0;
  char buffer_[kCapacity];
};

// `text` as a JSON string, quotes and escapes included.
inline void AppendString(std::string* out, std::string_view text) { JsonBuffer(out).String(text); }

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_JSON_OUT_H_
