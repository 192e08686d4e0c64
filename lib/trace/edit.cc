#include "lib/trace/edit.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cstring>
#include <vector>


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

// Inline byte compares: these names are short and libc's memcmp call
// costs more than the compare (EditInts runs once per record).
[[gnu::always_inline]] inline bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

int SchemaIndex(RecordType type, std::string_view key) {
  if (SameName(key, "type")) return kType;
  const int index = FieldIndex(type, key);
  return index < 0 ? kUnknown : index;  // a newer producer's key, or one spelled with escapes
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
bool AllAppend(RecordType type, std::string_view line, std::span<const IntEdit> edits) {
  std::string_view last_key;
  if (LastMemberKey(line, &last_key) == std::string_view::npos) return false;
  const int last = SchemaIndex(type, last_key);
  for (const IntEdit& edit : edits) {
    if (SchemaIndex(type, edit.name) <= last ||
        (!edit.absent && memmem(line.data(), line.size(), edit.name.data(), edit.name.size()) != nullptr)) {
      return false;
    }
  }
  return true;
}

}  // namespace

void EditInts(RecordType type, std::string_view line, std::span<const IntEdit> edits, std::string* out) {
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
  // One per edit; a sorted insertion is cheaper than a sort for so few.
  thread_local std::vector<Splice> splices;
  splices.clear();
  auto add = [](const Splice& s) {
    splices.push_back(s);
    for (size_t j = splices.size() - 1; j > 0; --j) {
      const Splice& a = splices[j - 1];
      if (a.begin < s.begin || (a.begin == s.begin && a.index <= s.index)) break;
      std::swap(splices[j - 1], splices[j]);
    }
  };
  const bool all_append = AllAppend(type, line, edits);
  if (all_append) {
    for (const IntEdit& edit : edits) {
      add({line.size() - 1, line.size() - 1, SchemaIndex(type, edit.name), &edit, true, true});
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
      if (seen[e] || !SameName(m.key, edits[e].name)) continue;  // a repeated key: the first counts
      add({m.value_begin, m.value_end, 0, &edits[e], false, false});
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
    const int index = SchemaIndex(type, edit.name);
    assert(index >= 0 && index != kUnknown);
    size_t after = members.size();
    while (after > 0 && SchemaIndex(type, members[after - 1].key) > index) --after;
    if (after == members.size()) add({close, close, index, &edit, true, true});
    else add({members[after].key_at, members[after].key_at, index, &edit, true, false});
  }
  // Written straight into *out, sized for the longest result; integers as
  // Encode writes them (std::to_chars).
  size_t most = line.size() + 1;
  for (const IntEdit& edit : edits) most += edit.name.size() + 4 + 20;
  const size_t start = out->size();
  out->resize(start + most);
  char* o = out->data() + start;
  auto raw = [&o](const char* data, size_t n) {
    std::memcpy(o, data, n);
    o += n;
  };
  auto integer = [&o](int64_t value) { o = std::to_chars(o, o + 20, value).ptr; };
  size_t copied = 0;
  bool any_member = all_append || !members.empty();
  for (const Splice& s : splices) {
    raw(line.data() + copied, s.begin - copied);
    copied = s.end;
    if (!s.insert) {
      integer(s.edit->value);
      continue;
    }
    if (s.last && any_member) *o++ = ',';
    *o++ = '"';
    raw(s.edit->name.data(), s.edit->name.size());
    *o++ = '"';
    *o++ = ':';
    integer(s.edit->value);
    if (!s.last) *o++ = ',';
    any_member = true;
  }
  raw(line.data() + copied, line.size() - copied);
  *o++ = '\n';
  out->resize(o - out->data());
}

}  // namespace rp::trace
