// rp::trace::Record: one decoded line of an rp-trace stream.
//
// A Record holds one struct per known record type and `type` says which one
// is valid; the reader reuses the same Record for every line, so decoding
// allocates nothing once strings and arrays have grown. `line` is the raw
// text, so a stage can pass a record on byte for byte without re-encoding.
//
//   rp::trace::Record rec;
//   while (reader.Next(&rec) ...) {
//     if (rec.type == RecordType::kMpi) Use(rec.mpi);
//     else writer.WriteRaw(rec.line);
//   }
#ifndef RP_LIB_TRACE_RECORD_H_
#define RP_LIB_TRACE_RECORD_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/trace/schema.h"

namespace rp::trace {

// Where a value lies in its line: byte offsets, end exclusive.
struct ValueSpan {
  uint32_t begin = 0, end = 0;
};

struct Record {
  RecordType type = RecordType::kUnknown;
  std::string_view line;   // raw text without the newline; valid until the next read
  std::string type_name;   // the "type" value as written (useful for unknown types)
  // The line is in the form Encode writes (no whitespace, known keys only,
  // none twice, no null, no escapes): a field the record lacks is not in it.
  bool canonical = false;
  // For a canonical line: where each present field's value lies, by schema
  // index (k_<name>), and the index of its last member (-1: none after
  // "type"). A stage can then rewrite a value or append a field without
  // reading the line again (trace::EditSpans).
  std::array<ValueSpan, 64> spans;
  int last_field = -1;

#define RP_RECORD_MEMBER(Camel, lower, doc) Camel##Record lower;
  RP_RECORD_TYPES(RP_RECORD_MEMBER)
#undef RP_RECORD_MEMBER

  // The struct of record type R: rec.Get<MpiRecord>() is rec.mpi.
  template <typename R> R& Get();
  template <typename R> const R& Get() const {
    return const_cast<Record*>(this)->Get<R>();
  }
};

#define RP_RECORD_GET(Camel, lower, doc) \
  template <> inline Camel##Record& Record::Get<Camel##Record>() { return lower; }
RP_RECORD_TYPES(RP_RECORD_GET)
#undef RP_RECORD_GET

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_RECORD_H_
