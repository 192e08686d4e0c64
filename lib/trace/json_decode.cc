#include "lib/trace/json_decode.h"

#include <simdjson.h>

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include "lib/trace/codec.h"
#include "lib/trace/field_lookup.h"
#include "lib/trace/json_out.h"

namespace rp::trace::internal {

namespace ondemand = simdjson::ondemand;

namespace {

std::string Quote(std::string_view text) {
  std::string out;
  AppendString(&out, text);
  return out;
}

Status JsonError(simdjson::error_code code) {
  return InputError(std::string("not valid JSON (") + simdjson::error_message(code) + ")");
}

// The raw JSON text of any value (consuming it), for fields this version
// does not know.
simdjson::error_code RawValue(ondemand::value& value, std::string_view* raw) {
  ondemand::json_type type;
  if (auto e = value.type().get(type)) return e;
  simdjson::error_code e = simdjson::SUCCESS;
  if (type == ondemand::json_type::object) {
    ondemand::object object;
    e = value.get_object().get(object);
    if (!e) e = object.raw_json().get(*raw);
  } else if (type == ondemand::json_type::array) {
    ondemand::array array;
    e = value.get_array().get(array);
    if (!e) e = array.raw_json().get(*raw);
  } else {
    *raw = value.raw_json_token();
  }
  while (!e && !raw->empty() && std::strchr(" \t\r\n", raw->back())) raw->remove_suffix(1);
  return e;
}

// The per-field hot path returns bare simdjson error codes; messages are
// built only when something is wrong (a Status per field costs ~20% of
// decoding time).
simdjson::error_code ReadValue(ondemand::value& value, int64_t* out) {
  return value.get_int64().get(*out);
}
simdjson::error_code ReadValue(ondemand::value& value, double* out) {
  return value.get_double().get(*out);
}
simdjson::error_code ReadValue(ondemand::value& value, bool* out) {
  return value.get_bool().get(*out);
}
simdjson::error_code ReadValue(ondemand::value& value, std::string* out) {
  std::string_view text;
  auto e = value.get_string().get(text);
  if (!e) out->assign(text);
  return e;
}

simdjson::error_code ReadValue(ondemand::value& value, Completion* out) {
  ondemand::object object;
  if (auto e = value.get_object().get(object)) return e;
  *out = Completion{};
  bool has_req = false;
  for (auto member : object) {
    ondemand::raw_json_string key;
    if (auto e = member.key().get(key)) return e;
    auto v_result = member.value();
    if (auto e = v_result.error()) return e;
    ondemand::value& v = v_result.value_unsafe();
    int64_t* slot = key.unsafe_is_equal("req")     ? &out->req
                    : key.unsafe_is_equal("peer")  ? &out->peer
                    : key.unsafe_is_equal("tag")   ? &out->tag
                    : key.unsafe_is_equal("bytes") ? &out->bytes
                                                   : nullptr;
    if (slot == nullptr) {
      // A newer producer's addition: tolerated, but consumed to validate it.
      std::string_view skipped;
      if (auto e = RawValue(v, &skipped)) return e;
      continue;
    }
    if (auto e = v.get_int64().get(*slot)) return e;
    has_req |= slot == &out->req;
  }
  return has_req ? simdjson::SUCCESS : simdjson::NO_SUCH_FIELD;
}

template <typename T>
simdjson::error_code ReadValue(ondemand::value& value, std::vector<T>* out) {
  ondemand::array array;
  if (auto e = value.get_array().get(array)) return e;
  out->clear();
  for (auto item_result : array) {
    if (auto e = item_result.error()) return e;
    if (auto e = ReadValue(item_result.value_unsafe(), &out->emplace_back())) return e;
  }
  return simdjson::SUCCESS;
}

// What a field of each kind must hold, for messages.
std::string_view Expectation(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt: return "an integer";
    case FieldKind::kReal: return "a number";
    case FieldKind::kBool: return "true or false";
    case FieldKind::kStr: return "a string";
    case FieldKind::kInts: return "an array of integers";
    case FieldKind::kReals: return "an array of numbers";
    case FieldKind::kStrs: return "an array of strings";
    case FieldKind::kDone: return "an array of {\"req\", \"peer\", \"tag\", \"bytes\"} objects with integer values and \"req\" present";
  }
  return "?";
}

// The message for a field that failed to decode with `error`.
Status FieldError(std::string_view name, FieldKind kind, simdjson::error_code error,
                  ondemand::value& value) {
  switch (error) {
    case simdjson::INCORRECT_TYPE:
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE:
    case simdjson::NO_SUCH_FIELD: {
      std::string_view token = value.raw_json_token();
      while (!token.empty() && std::strchr(" \t\r\n,}]", token.back())) token.remove_suffix(1);
      std::string got(token.substr(0, 40));
      if (token.size() > 40) got += "...";
      const bool scalar = kind == FieldKind::kInt || kind == FieldKind::kReal ||
                          kind == FieldKind::kBool || kind == FieldKind::kStr;
      return InputError("field " + Quote(name) + " must be " + std::string(Expectation(kind)) +
                        (scalar && !got.empty() ? ", got " + got : ""));
    }
    default:
      return JsonError(error);
  }
}

#define RP_FIELD_NAME(kind, name, presence, doc) #name,
#define RP_DECODE_CASE(kind, name, presence, doc)                \
  case R::k_##name:                                              \
    if (auto e = ReadValue(value, &record->name)) return e;      \
    record->present |= uint64_t{1} << R::k_##name;               \
    return simdjson::SUCCESS;
#define RP_DEFINE_DECODE_FIELD(Camel, lower, doc)                                \
  constexpr std::string_view k##Camel##FieldNames[] = {                          \
      RP_FIELDS_##lower(RP_FIELD_NAME)};                                         \
  std::span<const std::string_view> FieldNames(const Camel##Record*) {           \
    return k##Camel##FieldNames;                                                 \
  }                                                                              \
  simdjson::error_code DecodeField(Camel##Record* record, int index,             \
                                   ondemand::value& value) {                     \
    using R = Camel##Record;                                                     \
    switch (index) { RP_FIELDS_##lower(RP_DECODE_CASE) }                         \
    return simdjson::SUCCESS;                                                    \
  }
RP_RECORD_TYPES(RP_DEFINE_DECODE_FIELD)
#undef RP_DEFINE_DECODE_FIELD
#undef RP_DECODE_CASE
#undef RP_FIELD_NAME

// The same for simdjson's raw key (text up to the closing quote). Schema
// names need no escaping: a key with an escape is reported unknown here and
// looked up again once unescaped.
int FindRawKey(std::span<const std::string_view> names, const char* key, int hint) {
  size_t len = 0;
  while (key[len] != '"') {
    if (key[len] == '\\') return kUnknownField;
    ++len;
  }
  return FindField(names, std::string_view(key, len), hint);
}

// " (rank 3, seq 17)" for records that carry them, to find the culprit.
template <typename R>
std::string Context(const R& record) {
  std::vector<std::string> parts;
  if constexpr (requires { record.has_rank(); record.rank + 0; }) {
    if (record.has_rank()) parts.push_back("rank " + std::to_string(record.rank));
  }
  if constexpr (requires { record.has_seq(); }) {
    if (record.has_seq()) parts.push_back("seq " + std::to_string(record.seq));
  }
  if constexpr (requires { record.has_id(); }) {
    if (record.has_id()) parts.push_back("id " + std::to_string(record.id));
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? " (" : ", ") + part;
  return out.empty() ? out : out + ")";
}

// Decodes the fields from `it` to the end of the object; `types_ahead` is 1
// when the "type" member (read already) is still to come, else 0. A key
// given twice is an error: readers disagree on which one counts, and
// stages that edit a field in place edit the first.
template <typename R>
Status DecodeFields(ondemand::object_iterator it, ondemand::object_iterator end, int types_ahead,
                    R* record) {
  const std::span<const std::string_view> names = FieldNames(record);
  int hint = 0;
  uint64_t given = 0;  // fields met so far, null ones included
  for (; it != end; ++it) {
    auto field_result = *it;
    if (auto e = field_result.error()) return JsonError(e);
    ondemand::field& field = field_result.value_unsafe();
    int index = FindRawKey(names, field.key().raw(), hint);
    std::string unescaped;  // for keys not found as written (owned: the parser reuses its buffer)
    if (index == kUnknownField) {
      std::string_view name;
      if (auto e = field.unescaped_key().get(name)) return JsonError(e);
      unescaped.assign(name);
      index = FindField(names, unescaped, hint);  // "t\u0030" is "t0"
    }
    if (index == kTypeField) {
      if (types_ahead-- > 0) continue;  // known already; skipped unread
      return InputError("field \"type\" given twice");
    }
    if (index >= 0 && ((given >> index) & 1)) {
      return InputError("field " + Quote(names[index]) + " given twice");
    }
    ondemand::value& value = field.value();
    if (index == kUnknownField) {
      for (const auto& [key, raw] : record->extra) {
        if (key == unescaped) return InputError("field " + Quote(unescaped) + " given twice");
      }
      std::string_view raw;
      if (auto e = RawValue(value, &raw)) return JsonError(e);
      record->extra.emplace_back(std::move(unescaped), std::string(raw));
      continue;
    }
    given |= uint64_t{1} << index;
    if (auto e = DecodeField(record, index, value)) {
      bool is_null = false;
      if (value.is_null().get(is_null) == simdjson::SUCCESS && is_null) {
        continue;  // null stands for an absent field
      }
      const FieldSpec& spec = SpecOf(R::kType).fields[index];
      return FieldError(spec.name, spec.kind, e, value);
    }
    hint = index + 1;
  }
  const uint64_t missing = R::kRequiredMask & ~record->present;
  if (missing != 0) {
    return InputError("field " + Quote(names[__builtin_ctzll(missing)]) + " missing");
  }
  return OkStatus();
}

template <typename R>
Status DecodeObject(ondemand::object_iterator it, ondemand::object_iterator end, int types_ahead,
                    R* record) {
  record->Clear();
  Status status = DecodeFields(it, end, types_ahead, record);
  if (!status.ok()) {
    return InputError(status.message() + " in " + std::string(R::kTypeName) + " record" +
                      Context(*record));
  }
  return OkStatus();
}

}  // namespace

struct JsonDecoder::Parser {
  ondemand::parser parser;
};

JsonDecoder::JsonDecoder() : parser_(std::make_unique<Parser>()) {}
JsonDecoder::~JsonDecoder() = default;

Status JsonDecoder::Decode(std::string_view text, Record* record) {
  record->line = text;
  record->canonical = false;
  ondemand::document doc;
  if (auto e = parser_->parser.iterate(text.data(), text.size(), text.size() + kDecodePadding)
                   .get(doc)) {
    return JsonError(e);
  }
  ondemand::object object;
  if (auto e = doc.get_object().get(object)) {
    const size_t first = text.find_first_not_of(" \t");
    const char c = first == std::string_view::npos ? ' ' : text[first];
    if (e == simdjson::INCORRECT_TYPE && (c == '[' || c == '"' || c == '-' || std::isdigit(c))) {
      return InputError("not a JSON object (every line must be one record {...})");
    }
    return InputError("not valid JSON (a record is one {...} object per line)");
  }
  // Lines this library writes start with "type": read it in the same pass.
  // Otherwise look it up and start over.
  ondemand::object_iterator it, end;
  if (auto e = object.begin().get(it)) return JsonError(e);
  if (auto e = object.end().get(end)) return JsonError(e);
  std::string_view type_name;
  bool type_first = false;
  if (it != end) {
    auto first = *it;
    if (auto e = first.error()) return JsonError(e);
    ondemand::field& field = first.value_unsafe();
    if (field.key().unsafe_is_equal("type")) {
      if (auto e = field.value().get_string().get(type_name)) {
        return FieldError("type", FieldKind::kStr, e, field.value());
      }
      type_first = true;
      ++it;
    }
  }
  if (!type_first) {
    ondemand::value type_value;
    if (auto e = object.find_field_unordered("type").get(type_value)) {
      if (e == simdjson::NO_SUCH_FIELD) return InputError("field \"type\" missing");
      return JsonError(e);
    }
    if (auto e = type_value.get_string().get(type_name)) {
      return FieldError("type", FieldKind::kStr, e, type_value);
    }
    if (auto e = object.reset().error()) return JsonError(e);
    if (auto e = object.begin().get(it)) return JsonError(e);
  }
  record->type_name.assign(type_name);
  record->type = RecordTypeFromName(type_name);

  Status status;
  switch (record->type) {
#define RP_DECODE_TYPE_CASE(Camel, lower, doc)                          \
  case RecordType::k##Camel:                                            \
    status = DecodeObject(it, end, type_first ? 0 : 1, &record->lower); \
    break;
    RP_RECORD_TYPES(RP_DECODE_TYPE_CASE)
#undef RP_DECODE_TYPE_CASE
    case RecordType::kUnknown:
      // Passed through unchanged, but still checked to be one JSON object.
      for (; it != end; ++it) {
        auto field_result = *it;
        if (auto e = field_result.error()) return JsonError(e);
        std::string_view raw;
        if (auto e = RawValue(field_result.value_unsafe().value(), &raw)) return JsonError(e);
      }
      break;
  }
  RP_RETURN_IF_ERROR(status);
  const char* rest;
  if (doc.current_location().get(rest) != simdjson::OUT_OF_BOUNDS) {
    return InputError("unexpected text after the record's closing brace");
  }
  return OkStatus();
}

}  // namespace rp::trace::internal
