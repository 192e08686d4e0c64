// Finding a field of a record type by its key, for both decoders (the
// validating one, json_decode.cc, and the direct scan, canonical_scan.h).
// Internal to lib/trace.
#ifndef RP_LIB_TRACE_FIELD_LOOKUP_H_
#define RP_LIB_TRACE_FIELD_LOOKUP_H_

#include <span>
#include <string_view>

#include "lib/base/name_table.h"

// The canonical scan is one loop over the line only when all of it is
// inlined (the position then stays in a register): ~30% faster.
#define RP_INLINE [[gnu::always_inline]] inline

namespace rp::trace::internal {


constexpr int kUnknownField = -1;
constexpr int kTypeField = -2;

// Index of the field named `key` among the record's fields, kTypeField for
// "type", or kUnknownField. Lines written by this library have keys in
// schema order, so the fields after the previous one are tried first.
RP_INLINE int FindField(std::span<const std::string_view> names, std::string_view key, int hint) {
  // Optional fields are often absent: search on from the hint, then wrap.
  const int n = static_cast<int>(names.size());
  for (int i = hint; i < n; ++i) {
    if (SameName(names[i], key)) return i;
  }
  for (int i = 0; i < hint && i < n; ++i) {
    if (SameName(names[i], key)) return i;
  }
  return SameName("type", key) ? kTypeField : kUnknownField;
}

}  // namespace rp::trace::internal

#endif  // RP_LIB_TRACE_FIELD_LOOKUP_H_
