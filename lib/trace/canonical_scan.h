// The direct scan of canonical lines (LineDecoder's fast path). Header-only
// so that ScanCanonical inlines into the decoder; included by codec.cc
// alone. Internal to lib/trace.
#ifndef RP_LIB_TRACE_CANONICAL_SCAN_H_
#define RP_LIB_TRACE_CANONICAL_SCAN_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "lib/base/name_table.h"
#include "lib/trace/codec.h"
#include "lib/trace/field_lookup.h"
#include "lib/trace/record.h"

namespace rp::trace::internal {

// Lines in the narrow form Encode writes -- no whitespace, "type" first,
// known keys only and none twice, integers of at most 19 digits without
// fraction or exponent, ASCII strings without escapes, arrays of those,
// resolved objects as {"req":..,"peer":..,"tag":..,"bytes":..} -- are
// decoded by one direct scan, 2.4 times as fast as simdjson's ondemand API on
// mpi records (76 vs 180 ns; trace_bench's Decode rows). Any other line,
// including every malformed one, makes the scan give up and takes the
// validating simdjson path (json_decode.h), so both paths accept the same lines with
// the same result and the same messages (codec_test checks this on mutated
// lines). Reals are left to simdjson too.

static_assert(std::endian::native == std::endian::little);
// How many ASCII digits a little-endian word starts with (0-8): a byte
// that is no digit gets its high bit set (carries run only upwards, from
// bytes past the first non-digit, so they cannot hide it).
constexpr uint64_t kAsciiZeros = 0x3030303030303030;
RP_INLINE int LeadingDigits(uint64_t word) {
  const uint64_t t = word ^ kAsciiZeros;  // digits become 0..9
  const uint64_t other = (t | (t + 0x7676767676767676)) & 0x8080808080808080;
  return other == 0 ? 8 : std::countr_zero(other) / 8;
}
constexpr uint64_t kPowersOf10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
// The value of eight ASCII digits in a little-endian word (the technique of
// simdjson's and fast_float's number parsers).
RP_INLINE uint64_t EightDigitsValue(uint64_t word) {
  word -= 0x3030303030303030;
  word = word * 10 + (word >> 8);  // pairs of digits
  word = (((word & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) +
          (((word >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >> 32;
  return static_cast<uint32_t>(word);
}

// A key as the scan meets it after its opening quote: `name":`. Its first
// eight bytes are compared as one word: most keys are decided by one
// compare, and a line in schema order needs one or two per key.
struct KeyToken {
  uint64_t head = 0;  // the first up to 8 bytes of `name":`, little-endian
  uint64_t mask = 0;  // the bytes of head that count
  std::string_view name;
};
constexpr KeyToken MakeKeyToken(std::string_view name) {
  KeyToken token;
  token.name = name;
  for (size_t i = 0; i < 8 && i < name.size() + 2; ++i) {
    const char c = i < name.size() ? name[i] : i == name.size() ? '"' : ':';
    token.head |= uint64_t{static_cast<unsigned char>(c)} << (8 * i);
    token.mask |= uint64_t{0xff} << (8 * i);
  }
  return token;
}
// The same with the comma before the key, `,"name":`, for the in-order scan.
struct CommaKeyToken {
  uint64_t head = 0;
  uint64_t mask = 0;
  char text[68] = {};  // `,"name":`
  size_t size = 0;
};
constexpr CommaKeyToken MakeCommaKeyToken(std::string_view name) {
  CommaKeyToken token;
  token.size = name.size() + 4;
  for (size_t i = 0; i < token.size; ++i) {
    token.text[i] = i == 0 ? ',' : i == 1 || i == token.size - 2 ? '"' : i == token.size - 1 ? ':' : name[i - 2];
  }
  for (size_t i = 0; i < 8 && i < token.size; ++i) {
    token.head |= uint64_t{static_cast<unsigned char>(token.text[i])} << (8 * i);
    token.mask |= uint64_t{0xff} << (8 * i);
  }
  return token;
}
#define RP_KEY_TOKEN(kind, name, presence, doc) MakeKeyToken(#name),
#define RP_DEFINE_KEY_TOKENS(Camel, lower, doc)                                  \
  constexpr KeyToken k##Camel##KeyTokens[] = {RP_FIELDS_##lower(RP_KEY_TOKEN)}; \
  std::span<const KeyToken> KeyTokens(const Camel##Record*) { return k##Camel##KeyTokens; }
RP_RECORD_TYPES(RP_DEFINE_KEY_TOKENS)
#undef RP_DEFINE_KEY_TOKENS
#undef RP_KEY_TOKEN

// kZeroPadded: the text is followed by kDecodePadding zero bytes, so words
// are read at the scan without a look at how far the end is (no key,
// digit or string byte matches a zero, so the scan stops at the end).
template <bool kZeroPadded>
class CanonicalScan {
 public:
  CanonicalScan(const char* p, const char* end) : begin_(p), p_(p), end_(end) {}

  RP_INLINE bool AtEnd() const { return p_ == end_; }
  RP_INLINE bool AtNewline() const { return p_ != end_ && *p_ == '\n'; }
  RP_INLINE uint32_t offset() const { return static_cast<uint32_t>(p_ - begin_); }
  RP_INLINE void Seek(uint32_t offset) { p_ = begin_ + offset; }
  RP_INLINE bool Eat(char c) {
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  RP_INLINE bool Eat(std::string_view literal) {
    if (static_cast<size_t>(end_ - p_) < literal.size() ||
        __builtin_memcmp(p_, literal.data(), literal.size()) != 0) {  // literals: inlined word compares
      return false;
    }
    p_ += literal.size();
    return true;
  }
  // The word at the scan, padded with zero bytes near the text's end
  // (which no key's bytes match).
  RP_INLINE uint64_t Word() const {
    uint64_t word = 0;
    if (kZeroPadded || end_ - p_ >= 8) {
      std::memcpy(&word, p_, 8);
    } else {
      for (const char* q = end_; q != p_;) word = word << 8 | static_cast<unsigned char>(*--q);
    }
    return word;
  }
  // Eats `,"name":` if the scan stands at it.
  RP_INLINE bool CommaKey(uint64_t word, const CommaKeyToken& token) {
    if ((word & token.mask) != token.head) return false;
    if (token.size > 8) {
      if (static_cast<size_t>(end_ - p_) < token.size) return false;
      for (size_t i = 8; i < token.size; ++i) {
        if (p_[i] != token.text[i]) return false;
      }
    }
    p_ += token.size;
    return true;
  }

  // A key and its colon, "name":, as the index of its token, tried from
  // `hint` on and then from the start; -1 (nothing eaten) for any other key.
  // Names hold no quote, so `name":` here means the key is exactly name.
  RP_INLINE int Key(std::span<const KeyToken> tokens, int hint) {
    if (!Eat('"')) return -1;
    const int n = static_cast<int>(tokens.size());
    const uint64_t word = Word();
    for (int i = hint; i < n; ++i) {
      if (WordKey(word, tokens[i])) return i;
    }
    for (int i = 0; i < hint && i < n; ++i) {
      if (WordKey(word, tokens[i])) return i;
    }
    return -1;
  }

  RP_INLINE bool Value(int64_t* out) {
    // Most numbers of a trace (ranks, seq, sites, tags, sizes) have one to
    // seven digits, all in the word at the scan: read at once, with no
    // range to check.
    if (kZeroPadded || end_ - p_ >= 8) {
      uint64_t word;
      std::memcpy(&word, p_, 8);
      const uint64_t t = word ^ kAsciiZeros;
      const uint64_t other = (t | (t + 0x7676767676767676)) & 0x8080808080808080;
      const int count = std::countr_zero(other) / 8;  // 8 when other == 0
      if (count - 1u < 7u) {
        if (count > 1 && (t & 0xff) == 0) return false;  // a leading zero
        const int pad = 8 * (8 - count);
        *out = static_cast<int64_t>(EightDigitsValue(word << pad | kAsciiZeros >> (64 - pad)));
        p_ += count;
        return true;
      }
      // Nanosecond time stamps have 9 to 15 digits: eight in this word and
      // the rest at the front of the next, again with no range to check.
      if (count == 8 && (kZeroPadded || end_ - p_ >= 16) && (t & 0xff) != 0) {
        uint64_t next;
        std::memcpy(&next, p_ + 8, 8);
        const uint64_t u = next ^ kAsciiZeros;
        const uint64_t more = (u | (u + 0x7676767676767676)) & 0x8080808080808080;
        const int rest = std::countr_zero(more) / 8;
        if (rest < 8) {
          uint64_t v = EightDigitsValue(word);
          if (rest > 0) {
            const int pad = 8 * (8 - rest);
            v = v * kPowersOf10[rest] + EightDigitsValue(next << pad | kAsciiZeros >> (64 - pad));
          }
          *out = static_cast<int64_t>(v);
          p_ += 8 + rest;
          return true;
        }
      }
    }
    const char* p = p_;
    const bool negative = p != end_ && *p == '-';
    p += negative;
    const char* digits = p;
    uint64_t v = 0;
    // Up to eight digits a step: the digits at the front of a word are
    // counted at once and read as one word padded with leading zeros. (Past
    // 19 digits v wraps, but such a number is refused below.)
    for (;;) {
      if (end_ - p < 8) {  // near the line's end: byte by byte
        while (p != end_ && static_cast<unsigned char>(*p - '0') < 10) {
          v = v * 10 + static_cast<unsigned char>(*p - '0');
          ++p;
        }
        break;
      }
      uint64_t word;
      std::memcpy(&word, p, 8);
      const int count = LeadingDigits(word);
      if (count == 8) {
        v = v * 100000000 + EightDigitsValue(word);
        p += 8;
        continue;
      }
      if (count > 0) {
        const int pad = 8 * (8 - count);
        v = v * kPowersOf10[count] + EightDigitsValue(word << pad | kAsciiZeros >> (64 - pad));
        p += count;
      }
      break;
    }
    const size_t n = p - digits;
    if (n == 0 || n > 19 || (n > 1 && *digits == '0')) return false;
    // 19 digits cannot overflow uint64_t; the int64_t range is checked here.
    const uint64_t limit = uint64_t{INT64_MAX} + (negative ? 1 : 0);
    if (v > limit) return false;
    *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    p_ = p;
    return true;
  }
  RP_INLINE bool Value(double*) { return false; }
  RP_INLINE bool Value(bool* out) {
    if (Eat("true")) return *out = true, true;
    if (Eat("false")) return *out = false, true;
    return false;
  }
  RP_INLINE bool Value(std::string_view* out) {
    if (!Eat('"')) return false;
    const char* start = p_;
    // A word at a time: the first byte that is a quote, a backslash, a
    // control character or not ASCII stops the string (the lowest byte each
    // test flags is exact: borrows only run upwards).
    constexpr uint64_t kOnes = 0x0101010101010101, kHighs = 0x8080808080808080;
    while (kZeroPadded || end_ - p_ >= 8) {
      uint64_t word;
      std::memcpy(&word, p_, 8);
      const uint64_t quote = word ^ (kOnes * '"'), slash = word ^ (kOnes * '\\');
      const uint64_t stop = (((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash) |
                             ((word - kOnes * 0x20) & ~word) | word) & kHighs;
      if (stop == 0) {
        p_ += 8;
        continue;
      }
      p_ += std::countr_zero(stop) / 8;
      if (*p_ != '"') return false;  // escapes, UTF-8
      *out = std::string_view(start, p_ - start);
      ++p_;
      return true;
    }
    while (p_ != end_) {
      const unsigned char c = *p_;
      if (c == '"') {
        *out = std::string_view(start, p_ - start);
        ++p_;
        return true;
      }
      if (c < 0x20 || c == '\\' || c >= 0x80) return false;  // escapes, UTF-8
      ++p_;
    }
    return false;
  }
  RP_INLINE bool Value(std::string* out) {
    std::string_view text;
    if (!Value(&text)) return false;
    if (!SameName(*out, text)) out->assign(text);  // often the last record's (fn): kept
    return true;
  }
  RP_INLINE bool Value(Completion* out) {
    return Eat("{\"req\":") && Value(&out->req) && Eat(",\"peer\":") && Value(&out->peer) &&
           Eat(",\"tag\":") && Value(&out->tag) && Eat(",\"bytes\":") && Value(&out->bytes) &&
           Eat('}');
  }
  template <typename T>
  RP_INLINE bool Value(std::vector<T>* out) {
    if (!Eat('[')) return false;
    out->clear();
    if (Eat(']')) return true;
    do {
      if (!Value(&out->emplace_back())) return false;
    } while (Eat(','));
    return Eat(']');
  }

 private:
  // The key at p_ (8 bytes readable) is the token's: eats it.
  RP_INLINE bool WordKey(uint64_t word, const KeyToken& token) {
    if ((word & token.mask) != token.head) return false;
    const size_t size = token.name.size() + 2;
    if (size > 8) {  // the rest of a long name, then `":`
      if (static_cast<size_t>(end_ - p_) < size) return false;
      for (size_t i = 8; i < token.name.size(); ++i) {
        if (p_[i] != token.name[i]) return false;
      }
      if (p_[size - 2] != '"' || p_[size - 1] != ':') return false;
    }
    p_ += size;
    return true;
  }

  const char* begin_;
  const char* p_;
  const char* end_;
};

#define RP_SCAN_CASE(kind, name, presence, doc)                   \
  case R::k_##name:                                               \
    if (!scan.Value(&record->name)) return false;                 \
    record->present |= uint64_t{1} << R::k_##name;                \
    return true;
#define RP_DEFINE_SCAN_FIELD(Camel, lower, doc)                                  \
  template <typename Scan>                                                       \
  RP_INLINE bool ScanField(Camel##Record* record, int index, Scan& scan) {      \
    using R = Camel##Record;                                                     \
    switch (index) { RP_FIELDS_##lower(RP_SCAN_CASE) }                           \
    return false;                                                                \
  }
RP_RECORD_TYPES(RP_DEFINE_SCAN_FIELD)
#undef RP_DEFINE_SCAN_FIELD
#undef RP_SCAN_CASE

// The fields after "type" in schema order, as Encode writes them: each
// field's key is tried once, in turn, with its comma by one word compare,
// and its value read by code for that field, without a dispatch on the
// key. Stops at the first key that is not next in schema order: at the
// closing brace of a line in order. The word at the scan is read again
// only after a field was taken.
#define RP_IN_ORDER_FIELD(kind, name, presence, doc)                      \
  {                                                                       \
    static constexpr CommaKeyToken kToken = MakeCommaKeyToken(#name);     \
    if (scan.CommaKey(word, kToken)) {                                    \
      const uint32_t begin = scan.offset();                               \
      if (!scan.Value(&record->name)) return false;                       \
      record->present |= uint64_t{1} << R::k_##name;                      \
      spans[R::k_##name] = {begin, scan.offset()};                        \
      *last_field = R::k_##name;                                          \
      word = scan.Word();                                                 \
    }                                                                     \
  }
#define RP_DEFINE_SCAN_IN_ORDER(Camel, lower, doc)                                                        \
  template <typename Scan>                                                                              \
  RP_INLINE bool ScanInOrder(Scan& scan, Camel##Record* record, ValueSpan* spans, int* last_field) {    \
    using R = Camel##Record;                                                                              \
    *last_field = -1;                                                                                     \
    uint64_t word = scan.Word(); /* read again only once a field was taken */                             \
    RP_FIELDS_##lower(RP_IN_ORDER_FIELD)                                                                  \
    return true;                                                                                          \
  }
RP_RECORD_TYPES(RP_DEFINE_SCAN_IN_ORDER)
#undef RP_DEFINE_SCAN_IN_ORDER
#undef RP_IN_ORDER_FIELD

// The fields after "type" through the closing brace; false to fall back.
// Where each value lies goes to spans[index], the last member's index to
// *last_field. Lines in schema order take ScanInOrder; others start over
// with keys looked up one by one.
template <typename R, typename Scan>
RP_INLINE bool ScanFields(Scan& scan, R* record, ValueSpan* spans, int* last_field) {
  record->Clear();
  const uint32_t fields = scan.offset();
  if (ScanInOrder(scan, record, spans, last_field) && scan.Eat('}')) {
    return (R::kRequiredMask & ~record->present) == 0;
  }
  scan.Seek(fields);
  record->Clear();
  const std::span<const KeyToken> tokens = KeyTokens(record);
  int index = -1;
  while (!scan.Eat('}')) {
    if (!scan.Eat(',')) return false;
    index = scan.Key(tokens, index + 1);
    if (index < 0 || ((record->present >> index) & 1)) return false;
    const uint32_t begin = scan.offset();
    if (!ScanField(record, index, scan)) return false;
    spans[index] = {begin, scan.offset()};
  }
  *last_field = index;
  return (R::kRequiredMask & ~record->present) == 0;
}

// The record at the start of `text`: the whole of text, or (line_at) the
// text up to a '\n', then followed by kDecodePadding zero bytes. Returns
// the record's length, 0 to fall back.
template <bool line_at>
size_t ScanCanonical(std::string_view text, Record* record) {
  CanonicalScan<line_at> scan(text.data(), text.data() + text.size());
  std::string_view type_name = "mpi";
  if (scan.Eat("{\"type\":\"mpi\"")) {  // most lines of a trace: two word compares
    record->type = RecordType::kMpi;
  } else {
    if (!scan.Eat("{\"type\":") || !scan.Value(&type_name)) return 0;
    record->type = RecordTypeFromName(type_name);
  }
  switch (record->type) {
#define RP_SCAN_TYPE_CASE(Camel, lower, doc)             \
  case RecordType::k##Camel:                             \
    if (!ScanFields(scan, &record->lower, record->spans.data(), &record->last_field)) return 0; \
    break;
    RP_RECORD_TYPES(RP_SCAN_TYPE_CASE)
#undef RP_SCAN_TYPE_CASE
    case RecordType::kUnknown:
      return 0;  // only simdjson checks the rest is one JSON object
  }
  if (!(line_at ? scan.AtNewline() : scan.AtEnd())) return 0;
  if (!SameName(record->type_name, type_name)) record->type_name.assign(type_name);
  record->line = text.substr(0, scan.offset());
  record->canonical = true;
  return scan.offset();
}

}  // namespace rp::trace::internal

#endif  // RP_LIB_TRACE_CANONICAL_SCAN_H_
