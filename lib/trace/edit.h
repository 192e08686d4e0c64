// Changing a few integer fields of a record line without decoding and
// re-encoding it: for stages that pass records on with new numbers
// (rp-clocksync's times, rp-phases' phase ids). Decoding and re-encoding a
// line costs several times more than this splice.
//
// The line must be one valid JSON object (the reader has checked it). A
// field already there gets its value replaced where it stands; a missing
// one is inserted where Encode would write it (before the first later
// schema field or unknown key), so a line this library wrote comes out
// byte for byte as re-encoding the changed record would.
//
//   const rp::trace::IntEdit edits[] = {{"t0", 120}, {"t1", 180}};
//   rp::trace::EditInts(RecordType::kMpi, line, edits, &out);  // appends line + '\n'
#ifndef RP_LIB_TRACE_EDIT_H_
#define RP_LIB_TRACE_EDIT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "lib/trace/record.h"
#include "lib/trace/schema.h"

namespace rp::trace {

struct IntEdit {
  std::string_view name;  // a field of the record type's schema
  int64_t value;
  // The caller knows the line has no member of this name: it decoded the
  // line and it was canonical (trace::Record::canonical) without the field.
  bool absent = false;
};

// Appends `line` with `edits` applied, and a newline, to *out. Edits must
// name fields of `type` (a programming error otherwise); any number of them.
void EditInts(RecordType type, std::string_view line, std::span<const IntEdit> edits, std::string* out);

// An edit at a place the decoder found (trace::Record::spans of a canonical
// line), so the line is not read at all: the value at `at` becomes `value`;
// or, with a `name`, the member "name":value goes in at at.begin (== at.end),
// after a comma: at the closing brace it appends a member.
struct SpanEdit {
  ValueSpan at;
  int64_t value;
  std::string_view name = {};
};

// Appends `line` with `edits` (in line order, apart) applied, and a newline,
// to *out.
//
//   // rec decoded from a canonical line: rec.canonical
//   const SpanEdit edits[] = {{rec.spans[MpiRecord::k_t0], 120}, {rec.spans[MpiRecord::k_t1], 180}};
//   EditSpans(rec.line, edits, &out);
void EditSpans(std::string_view line, std::span<const SpanEdit> edits, std::string* out);

// The same, written at `out`, which has room for MostEditedSize(line,
// edits) bytes; they return the end of what they wrote. For a buffer that
// need not be zero-filled first (std::string::resize would).
size_t MostEditedSize(std::string_view line, std::span<const IntEdit> edits);
size_t MostEditedSize(std::string_view line, std::span<const SpanEdit> edits);
char* EditInts(RecordType type, std::string_view line, std::span<const IntEdit> edits, char* out);
char* EditSpans(std::string_view line, std::span<const SpanEdit> edits, char* out);

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_EDIT_H_
