#include "lib/trace/schema.h"

#include <array>

#include "lib/base/name_table.h"

namespace rp::trace {
namespace {

#define RP_FIELD_SPEC(kind, name, presence, doc) \
  FieldSpec{#name, FieldKind::k##kind, Presence::presence, doc},
#define RP_FIELD_SPECS(Camel, lower, doc) \
  constexpr FieldSpec k##Camel##Fields[] = {RP_FIELDS_##lower(RP_FIELD_SPEC)};
RP_RECORD_TYPES(RP_FIELD_SPECS)
#undef RP_FIELD_SPECS
#undef RP_FIELD_SPEC

#define RP_RECORD_SPEC(Camel, lower, doc) \
  RecordSpec{RecordType::k##Camel, #lower, doc, k##Camel##Fields},
constexpr RecordSpec kRecords[] = {RP_RECORD_TYPES(RP_RECORD_SPEC)};
#undef RP_RECORD_SPEC

static_assert(std::size(kRecords) == kKnownRecordTypes);

std::string EscapeMarkdownCell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

const std::array<NameTable, kKnownRecordTypes>& FieldTables() {
  static const auto* tables = [] {
    auto* t = new std::array<NameTable, kKnownRecordTypes>();
    for (size_t type = 0; type < kKnownRecordTypes; ++type) {
      for (size_t i = 0; i < kRecords[type].fields.size(); ++i) (*t)[type].Add(kRecords[type].fields[i].name, static_cast<int>(i));
    }
    return t;
  }();
  return *tables;
}

const NameTable& TypeTable() {
  static const auto* table = [] {
    auto* t = new NameTable();
    for (size_t type = 0; type < kKnownRecordTypes; ++type) t->Add(kRecords[type].name, static_cast<int>(type));
    return t;
  }();
  return *table;
}

}  // namespace

std::span<const RecordSpec> Schema() { return kRecords; }

const RecordSpec& SpecOf(RecordType type) {
  return kRecords[static_cast<int>(type)];
}

RecordType RecordTypeFromName(std::string_view name) {
  const int type = TypeTable().Find(name);
  return type < 0 ? RecordType::kUnknown : static_cast<RecordType>(type);
}

int FieldIndex(RecordType type, std::string_view name) {
  if (type == RecordType::kUnknown) return -1;
  return FieldTables()[static_cast<int>(type)].Find(name);
}

std::string_view FieldKindName(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt: return "int";
    case FieldKind::kReal: return "number";
    case FieldKind::kBool: return "bool";
    case FieldKind::kStr: return "string";
    case FieldKind::kInts: return "int[]";
    case FieldKind::kReals: return "number[]";
    case FieldKind::kStrs: return "string[]";
    case FieldKind::kDone: return "{req,peer,tag,bytes}[]";
  }
  return "?";
}

std::string SchemaMarkdown() {
  std::string out;
  out += "Every line is one JSON object whose `type` names its record type. ";
  out += "Fields appear in the order listed; **bold** fields are required. ";
  out += "Readers keep fields and record types they do not know and pass ";
  out += "them on unchanged.\n";
  for (const RecordSpec& spec : kRecords) {
    out += "\n#### `";
    out += spec.name;
    out += "` — ";
    out += spec.doc;
    out += "\n\n| field | type | meaning |\n|---|---|---|\n";
    for (const FieldSpec& field : spec.fields) {
      const bool required = field.presence == Presence::Req;
      out += required ? "| **" : "| ";
      out += field.name;
      out += required ? "** | " : " | ";
      out += EscapeMarkdownCell(FieldKindName(field.kind));
      out += " | ";
      out += EscapeMarkdownCell(field.doc);
      out += " |\n";
    }
  }
  return out;
}

}  // namespace rp::trace
