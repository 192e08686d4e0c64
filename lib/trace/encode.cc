// Encoding records as NDJSON lines: fields in schema order, then any extras
// a record carried from a newer producer (codec.h).
#include <string>
#include <vector>

#include "lib/trace/codec.h"
#include "lib/trace/json_out.h"

namespace rp::trace {

namespace {

void AppendValue(JsonBuffer& json, int64_t v) { json.Int(v); }
void AppendValue(JsonBuffer& json, double v) { json.Real(v); }
void AppendValue(JsonBuffer& json, bool v) { json.Bool(v); }
void AppendValue(JsonBuffer& json, const std::string& v) { json.String(v); }

void AppendValue(JsonBuffer& json, const Completion& c) {
  json.Literal("{\"req\":");
  json.Int(c.req);
  json.Literal(",\"peer\":");
  json.Int(c.peer);
  json.Literal(",\"tag\":");
  json.Int(c.tag);
  json.Literal(",\"bytes\":");
  json.Int(c.bytes);
  json.Char('}');
}

template <typename T>
void AppendValue(JsonBuffer& json, const std::vector<T>& values) {
  json.Char('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) json.Char(',');
    AppendValue(json, values[i]);
  }
  json.Char(']');
}

void AppendExtras(JsonBuffer& json, const Extras& extras) {
  for (const auto& [key, raw] : extras) {
    json.Char(',');
    json.String(key);
    json.Char(':');
    json.Raw(raw.data(), raw.size());
  }
}

}  // namespace

#define RP_ENCODE_FIELD(kind, name, presence, doc) \
  if (record.has_##name()) {                       \
    json.Literal(",\"" #name "\":");               \
    AppendValue(json, record.name);                \
  }
#define RP_DEFINE_ENCODE(Camel, lower, doc)                                   \
  template <>                                                                 \
  void Encode<Camel##Record>(const Camel##Record& record, std::string* out) { \
    JsonBuffer json(out);                                                     \
    json.Literal("{\"type\":\"" #lower "\"");                                 \
    RP_FIELDS_##lower(RP_ENCODE_FIELD)                                        \
    AppendExtras(json, record.extra);                                         \
    json.Literal("}\n");                                                      \
  }
RP_RECORD_TYPES(RP_DEFINE_ENCODE)
#undef RP_DEFINE_ENCODE
#undef RP_ENCODE_FIELD

void EncodeRecord(const Record& record, std::string* out) {
  switch (record.type) {
#define RP_ENCODE_CASE(Camel, lower, doc) \
  case RecordType::k##Camel:              \
    Encode(record.lower, out);            \
    return;
    RP_RECORD_TYPES(RP_ENCODE_CASE)
#undef RP_ENCODE_CASE
    case RecordType::kUnknown:
      out->append(record.line);
      out->push_back('\n');
      return;
  }
}

}  // namespace rp::trace
