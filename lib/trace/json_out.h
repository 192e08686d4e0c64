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

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace rp::trace {

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
    size_ = std::to_chars(buffer_ + size_, buffer_ + kCapacity, value).ptr - buffer_;
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
