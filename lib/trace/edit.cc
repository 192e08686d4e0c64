#include "lib/trace/edit.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <vector>

#include "lib/trace/json_out.h"

namespace rp::trace {
namespace {

constexpr int kUnknown = 1 << 30;  // after every schema field, like Encode's extras
constexpr int kType = -1;          // "type" comes first

bool Space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Characters that end a number, true, false or null.
constexpr std::array<bool, 256> kEndsScalar = [] {
  std::array<bool, 256> table{};
  for (char c : {',', '}', ']', ' ', '\t', '\r', '\n'}) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

// End of the string whose opening quote is at `i`.
size_t SkipString(std::string_view s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') ++i;
    else if (s[i] == '"') return i + 1;
  }
  return s.size();
}

// End of the value starting at `i` (no trailing space).
size_t SkipValue(std::string_view s, size_t i) {
  if (i >= s.size()) return i;
  if (s[i] == '"') return SkipString(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '"') {
        i = SkipString(s, i) - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return s.size();
  }
  while (i < s.size() && !kEndsScalar[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

int SchemaIndex(std::span<const FieldSpec> fields, std::string_view key) {
  if (key == "type") return kType;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == key) return static_cast<int>(i);
  }
  return kUnknown;  // a newer producer's key, or one spelled with escapes
}

bool Digit(char c) { return c >= '0' && c <= '9'; }

// Where the last member's key starts (its opening quote), found from the
// end of a line that ends in '}' right after a number, an array of plain
// integers or a string without escapes; npos for any other ending. In valid
// JSON a value right before the final brace belongs to the top-level object,
// and a string without backslashes holds no quote, so the walk back cannot
// be fooled.
size_t LastMemberKey(std::string_view line, std::string_view* key) {
  constexpr size_t npos = std::string_view::npos;
  size_t i = line.size();
  if (i < 2 || line[i - 1] != '}') return npos;
  --i;  // at the brace; the value ends here
  const char last = line[i - 1];
  if (Digit(last)) {
    while (i > 0 && (Digit(line[i - 1]) || line[i - 1] == '-')) --i;
  } else if (last == ']') {
    --i;
    while (i > 0 && (Digit(line[i - 1]) || line[i - 1] == '-' || line[i - 1] == ',')) --i;
    if (i == 0 || line[i - 1] != '[') return npos;
    --i;
  } else if (last == '"') {
    --i;
    while (i > 0 && line[i - 1] != '"') {
      if (line[i - 1] == '\\') return npos;
      --i;
    }
    if (i == 0) return npos;
    --i;
  } else {
    return npos;
  }
  // line[i] starts the value: then "key": before it, after '{' or ','.
  if (i < 2 || line[i - 1] != ':' || line[i - 2] != '"') return npos;
  i -= 2;
  const size_t key_end = i;
  while (i > 0 && line[i - 1] != '"') {
    if (line[i - 1] == '\\') return npos;
    --i;
  }
  if (i < 2 || (line[i - 2] != ',' && line[i - 2] != '{')) return npos;
  *key = line.substr(i, key_end - i);
  return i - 1;
}

// True when every edit adds a field that comes after the line's last member
// in the schema and whose name occurs nowhere in the line (rp-phases' phase
// on an mpi record): then all go before the closing brace and the line need
// not be scanned from the start.
bool AllAppend(std::span<const FieldSpec> fields, std::string_view line, std::span<const IntEdit> edits) {
  std::string_view last_key;
  if (LastMemberKey(line, &last_key) == std::string_view::npos) return false;
  const int last = SchemaIndex(fields, last_key);
  for (const IntEdit& edit : edits) {
    if (SchemaIndex(fields, edit.name) <= last || line.find(edit.name) != std::string_view::npos) return false;
  }
  return true;
}

}  // namespace

void EditInts(RecordType type, std::string_view line, std::span<const IntEdit> edits, std::string* out) {
  const std::span<const FieldSpec> fields = SpecOf(type).fields;
  // The object's top-level members: the key (without quotes) and where its
  // value lies; schema indices are looked up only when a field is missing.
  struct Member {
    std::string_view key;
    size_t key_at, value_begin, value_end;
  };
  thread_local std::vector<Member> members;
  members.clear();
  // Each edit becomes a splice: replace [begin, end), or insert at begin a
  // new member (`last`: at the closing brace, after a comma).
  struct Splice {
    size_t begin, end;
    int index;
    const IntEdit* edit;
    bool insert, last;
  };
  thread_local std::vector<Splice> splices;
  splices.clear();
  const bool all_append = AllAppend(fields, line, edits);
  if (all_append) {
    for (const IntEdit& edit : edits) {
      splices.push_back({line.size() - 1, line.size() - 1, SchemaIndex(fields, edit.name), &edit, true, true});
    }
  }
  // Otherwise members are scanned until every edited field has been seen:
  // when all are present (rp-clocksync's t0/t1), the rest is not read.
  thread_local std::vector<char> seen;
  seen.assign(edits.size(), 0);
  size_t unseen = all_append ? 0 : edits.size();
  size_t i = line.find('{');
  i = i == std::string_view::npos ? line.size() : i + 1;
  while (unseen > 0) {
    while (i < line.size() && (Space(line[i]) || line[i] == ',')) ++i;
    if (i >= line.size() || line[i] != '"') break;  // the closing brace
    Member m;
    m.key_at = i;
    i = SkipString(line, i);
    m.key = line.substr(m.key_at + 1, i - m.key_at - 2);
    while (i < line.size() && (Space(line[i]) || line[i] == ':')) ++i;
    m.value_begin = i;
    i = m.value_end = SkipValue(line, i);
    members.push_back(m);
    for (size_t e = 0; e < edits.size(); ++e) {
      if (seen[e] || m.key != edits[e].name) continue;  // a repeated key: the first counts
      splices.push_back({m.value_begin, m.value_end, 0, &edits[e], false, false});
      seen[e] = 1;
      --unseen;
    }
  }
  const size_t close = std::min(i, line.size());
  for (size_t e = 0; e < edits.size() && unseen > 0; ++e) {
    if (seen[e]) continue;
    const IntEdit& edit = edits[e];
    // Missing: right after the last member that comes before it in the
    // schema (for lines in schema order, where Encode would put it).
    const int index = SchemaIndex(fields, edit.name);
    assert(index >= 0 && index != kUnknown);
    size_t after = members.size();
    while (after > 0 && SchemaIndex(fields, members[after - 1].key) > index) --after;
    if (after == members.size()) splices.push_back({close, close, index, &edit, true, true});
    else splices.push_back({members[after].key_at, members[after].key_at, index, &edit, true, false});
  }
  std::sort(splices.begin(), splices.end(), [](const Splice& a, const Splice& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.index < b.index;
  });
  // Integers are written by the encoder's own JsonBuffer, as Encode would.
  JsonBuffer json(out);
  size_t copied = 0;
  bool any_member = all_append || !members.empty();
  for (const Splice& s : splices) {
    json.Raw(line.data() + copied, s.begin - copied);
    copied = s.end;
    if (!s.insert) {
      json.Int(s.edit->value);
      continue;
    }
    if (s.last && any_member) json.Char(',');
    json.Char('"');
    json.Raw(s.edit->name.data(), s.edit->name.size());
    json.Literal("\":");
    json.Int(s.edit->value);
    if (!s.last) json.Char(',');
    any_member = true;
  }
  json.Raw(line.data() + copied, line.size() - copied);
  json.Char('\n');
}

}  // namespace rp::trace
