#include "lib/trace/edit.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <vector>

namespace rp::trace {
namespace {

constexpr int kUnknown = 1 << 30;  // after every schema field, like Encode's extras
constexpr int kType = -1;          // "type" comes first

bool Space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

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
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !Space(s[i])) ++i;
  return i;
}

int SchemaIndex(std::span<const FieldSpec> fields, std::string_view key) {
  if (key == "type") return kType;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == key) return static_cast<int>(i);
  }
  return kUnknown;  // a newer producer's key, or one spelled with escapes
}

void AppendInt(int64_t value, std::string* out) {
  char digits[24];
  out->append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

void AppendField(std::string_view name, int64_t value, std::string* out) {
  out->push_back('"');
  out->append(name);
  out->append("\":");
  AppendInt(value, out);
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
  size_t i = line.find('{');
  i = i == std::string_view::npos ? line.size() : i + 1;
  for (;;) {
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
  }
  const size_t close = std::min(i, line.size());

  // Each edit becomes a splice: replace [begin, end), or insert at begin a
  // new member (`last`: at the closing brace, after a comma).
  struct Splice {
    size_t begin, end;
    int index;
    const IntEdit* edit;
    bool insert, last;
  };
  Splice splices[8];
  const size_t n = std::min(edits.size(), std::size(splices));
  assert(edits.size() <= std::size(splices));
  for (size_t k = 0; k < n; ++k) {
    const IntEdit& edit = edits[k];
    const int index = SchemaIndex(fields, edit.name);
    assert(index >= 0 && index != kUnknown);
    auto present = std::find_if(members.begin(), members.end(), [&](const Member& m) { return m.key == edit.name; });
    if (present != members.end()) {
      splices[k] = {present->value_begin, present->value_end, index, &edit, false, false};
      continue;
    }
    // Missing: right after the last member that comes before it in the
    // schema (for lines in schema order, where Encode would put it).
    size_t after = members.size();
    while (after > 0 && SchemaIndex(fields, members[after - 1].key) > index) --after;
    if (after == members.size()) splices[k] = {close, close, index, &edit, true, true};
    else splices[k] = {members[after].key_at, members[after].key_at, index, &edit, true, false};
  }
  std::sort(splices, splices + n, [](const Splice& a, const Splice& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.index < b.index;
  });
  size_t copied = 0;
  bool any_member = !members.empty();
  for (size_t k = 0; k < n; ++k) {
    const Splice& s = splices[k];
    out->append(line.substr(copied, s.begin - copied));
    copied = s.end;
    if (!s.insert) {
      AppendInt(s.edit->value, out);
      continue;
    }
    if (s.last && any_member) out->push_back(',');
    AppendField(s.edit->name, s.edit->value, out);
    if (!s.last) out->push_back(',');
    any_member = true;
  }
  out->append(line.substr(copied));
  out->push_back('\n');
}

}  // namespace rp::trace
