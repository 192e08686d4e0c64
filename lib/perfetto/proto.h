// The protobuf wire format, the little of it Perfetto's trace needs:
// varints, fixed64, length-delimited fields and nested messages, appended
// to a byte string; and a reader that walks a message's fields. Perfetto's
// own libraries are not in Debian, and its messages are few and stable.
//
//   std::string out;
//   ProtoWriter w(&out);
//   size_t packet = w.Open(1);     // Trace.packet
//   w.Varint(8, timestamp);
//   w.Close(packet);
#ifndef RP_LIB_PERFETTO_PROTO_H_
#define RP_LIB_PERFETTO_PROTO_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace rp::perfetto {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

class ProtoWriter {
 public:
  explicit ProtoWriter(std::string* out) : out_(out) {}

  void Varint(uint32_t field, uint64_t value) {
    Tag(field, kVarint);
    Raw(value);
  }
  void Fixed64(uint32_t field, uint64_t value) {
    Tag(field, kFixed64);
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
    out_->append(bytes, 8);
  }
  void Bytes(uint32_t field, std::string_view bytes) {
    Tag(field, kLength);
    Raw(bytes.size());
    out_->append(bytes);
  }
  // A nested message: its fields follow, then Close with what Open gave.
  // One byte is kept for the length, and the body moved on in the rare
  // case it needs more.
  size_t Open(uint32_t field) {
    Tag(field, kLength);
    out_->push_back('\0');
    return out_->size();
  }
  void Close(size_t body) {
    const size_t length = out_->size() - body;
    char bytes[10];
    const size_t n = Encode(length, bytes);
    if (n > 1) out_->insert(body, n - 1, '\0');
    std::memcpy(&(*out_)[body - 1], bytes, n);
  }

  void Raw(uint64_t value) {
    char bytes[10];
    out_->append(bytes, Encode(value, bytes));
  }

 private:
  void Tag(uint32_t field, WireType type) { Raw((uint64_t{field} << 3) | type); }
  static size_t Encode(uint64_t value, char* bytes) {
    size_t n = 0;
    while (value >= 0x80) {
      bytes[n++] = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    bytes[n++] = static_cast<char>(value);
    return n;
  }
  std::string* out_;
};

// The fields of one message, in order. Malformed input ends the walk with
// ok() false, never reads past the end.
class ProtoReader {
 public:
  explicit ProtoReader(std::string_view message) : p_(message.data()), end_(message.data() + message.size()) {}

  struct Field {
    uint32_t number = 0;
    WireType type = kVarint;
    uint64_t value = 0;       // varint and fixed
    std::string_view bytes;   // length-delimited
  };
  // The next field; false at the end or on malformed input.
  bool Next(Field* f) {
    if (p_ == end_) return false;
    uint64_t tag;
    if (!Varint(&tag)) return Fail();
    f->number = static_cast<uint32_t>(tag >> 3);
    f->type = static_cast<WireType>(tag & 7);
    switch (f->type) {
      case kVarint: return Varint(&f->value) || Fail();
      case kFixed64:
      case kFixed32: {
        const size_t n = f->type == kFixed64 ? 8 : 4;
        if (static_cast<size_t>(end_ - p_) < n) return Fail();
        f->value = 0;
        for (size_t i = 0; i < n; ++i) f->value |= uint64_t{static_cast<uint8_t>(p_[i])} << (8 * i);
        p_ += n;
        return true;
      }
      case kLength: {
        uint64_t n;
        if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return Fail();
        f->bytes = std::string_view(p_, n);
        p_ += n;
        return true;
      }
    }
    return Fail();
  }
  bool ok() const { return ok_; }

 private:
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && p_ < end_; shift += 7) {
      const uint8_t b = static_cast<uint8_t>(*p_++);
      *v |= uint64_t{b & 0x7fu} << shift;
      if (b < 0x80) return true;
    }
    return false;
  }
  bool Fail() {
    ok_ = false;
    p_ = end_;
    return false;
  }
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

}  // namespace rp::perfetto

#endif  // RP_LIB_PERFETTO_PROTO_H_
