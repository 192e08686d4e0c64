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
#include <emmintrin.h>
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

// The eight digits of high < 10^8, then those of low < 10^8, as ASCII in
// little-endian words: EightDigitsAscii's splits (by 10^4, then 100, then
// 10, each a multiply and shift) done for both in the lanes of one SSE2
// register.
struct SixteenDigits {
  uint64_t high, low;
};
inline SixteenDigits SixteenDigitsAscii(uint32_t high, uint32_t low) {
  const __m128i n = _mm_set_epi64x(low, high);
  // Each 64-bit lane: n / 10^4 and n % 10^4 into its two 32-bit lanes.
  const __m128i q4 = _mm_srli_epi64(_mm_mul_epu32(n, _mm_set1_epi32(static_cast<int>(0xd1b71759))), 45);
  const __m128i r4 = _mm_sub_epi32(n, _mm_mul_epu32(q4, _mm_set1_epi32(10000)));
  const __m128i x4 = _mm_or_si128(q4, _mm_slli_epi64(r4, 32));
  // Each 32-bit lane (< 10^4): / 100 and % 100 into its 16-bit lanes.
  const __m128i q2 = _mm_srli_epi16(_mm_mulhi_epu16(x4, _mm_set1_epi16(0x147b)), 3);
  const __m128i r2 = _mm_sub_epi16(x4, _mm_mullo_epi16(q2, _mm_set1_epi16(100)));
  const __m128i x2 = _mm_or_si128(q2, _mm_slli_epi32(r2, 16));
  // Each 16-bit lane (< 100): tens and ones into its bytes.
  const __m128i q1 = _mm_mulhi_epu16(x2, _mm_set1_epi16(0x199a));
  const __m128i r1 = _mm_sub_epi16(x2, _mm_mullo_epi16(q1, _mm_set1_epi16(10)));
  const __m128i ascii = _mm_add_epi8(_mm_or_si128(q1, _mm_slli_epi16(r1, 8)), _mm_set1_epi8('0'));
  return {static_cast<uint64_t>(_mm_cvtsi128_si64(ascii)),
          static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(ascii, ascii)))};
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
  // 9 to 16 digits (time stamps): both words at once in SSE2 lanes.
  const SixteenDigits digits = SixteenDigitsAscii(static_cast<uint32_t>(v / 100000000),
                                                  static_cast<uint32_t>(v % 100000000));
  const int zeros = std::countr_zero(digits.high ^ 0x3030303030303030) / 8;  // < 8: high > 0
  const uint64_t head_digits = digits.high >> (8 * zeros);
  std::memcpy(out, &head_digits, 8);
  out += 8 - zeros;
  std::memcpy(out, &digits.low, 8);
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

inline void AppendInt(std::string* out, int64_t value) { JsonBuffer(out).Int(value); }
inline void AppendReal(std::string* out, double value) { JsonBuffer(out).Real(value); }
inline void AppendString(std::string* out, std::string_view text) { JsonBuffer(out).String(text); }
inline void AppendBool(std::string* out, bool value) { JsonBuffer(out).Bool(value); }

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_JSON_OUT_H_
