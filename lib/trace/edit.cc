#include "lib/trace/edit.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cstring>

#include "lib/base/name_table.h"
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

// A key as JSON means it: escapes (\u0031 for "1") replaced, into *buffer.
// Valid JSON is assumed (the reader checked the line). Rare: producers
// write keys plainly; only keys with a backslash come here.
std::string_view Unescaped(std::string_view key, std::string* buffer) {
  buffer->clear();
  auto hex = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '\\' || i + 1 >= key.size()) {
      buffer->push_back(key[i]);
      continue;
    }
    const char e = key[++i];
    if (e != 'u' || i + 4 >= key.size()) {
      buffer->push_back(e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e);
      continue;
    }
    const unsigned code = (hex(key[i + 1]) << 12) | (hex(key[i + 2]) << 8) | (hex(key[i + 3]) << 4) | hex(key[i + 4]);
    i += 4;
    // Schema keys are ASCII: any other code point cannot match one, and
    // one byte of it stands for it well enough.
    buffer->push_back(code < 0x80 ? static_cast<char>(code) : '\x80');
  }
  return *buffer;
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

// True when every edit adds a field the caller knows is absent (rp-phases'
// phase on a canonical line) and that comes after the line's last member in
// the schema: then all go before the closing brace and the line need not be
// scanned from the start.
bool AllAppend(RecordType type, std::string_view line, std::span<const IntEdit> edits) {
  for (const IntEdit& edit : edits) {
    if (!edit.absent) return false;
  }
  std::string_view last_key;
  if (LastMemberKey(line, &last_key) == std::string_view::npos) return false;
  const int last = SchemaIndex(type, last_key);
  for (const IntEdit& edit : edits) {
    if (SchemaIndex(type, edit.name) <= last) return false;
  }
  return true;
}


// One top-level member of an object: its key (without quotes) and where
// its key and value lie.
struct Member {
  std::string_view key;
  size_t key_at, value_begin, value_end;
};

// Reads the member at or after *i (past commas and spaces) into *m; false
// at the closing brace (or the line's end), where *i is left.
// Inlined: its results then stay in registers (through memory, the caller's
// 16-byte reload of two 8-byte stores stalled store forwarding).
[[gnu::always_inline]] inline bool NextMember(std::string_view line, size_t* i, Member* m) {
  size_t at = *i;
  while (at < line.size() && (Space(line[at]) || line[at] == ',')) ++at;
  *i = at;
  if (at >= line.size() || line[at] != '"') return false;
  m->key_at = at;
  at = SkipString(line, at);
  m->key = line.substr(m->key_at + 1, at - m->key_at - 2);
  while (at < line.size() && (Space(line[at]) || line[at] == ':')) ++at;
  m->value_begin = at;
  *i = m->value_end = SkipValue(line, at);
  return true;
}

// The most an edit adds: its member `,"name":` and a 20-character integer.
template <typename Edit>
size_t MostEdited(std::string_view line, std::span<const Edit> edits) {
  size_t most = line.size() + 1;
  for (const Edit& edit : edits) most += edit.name.size() + 4 + 20;
  return most;
}

}  // namespace

size_t MostEditedSize(std::string_view line, std::span<const IntEdit> edits) { return MostEdited(line, edits); }
size_t MostEditedSize(std::string_view line, std::span<const SpanEdit> edits) { return MostEdited(line, edits); }

char* EditInts(RecordType type, std::string_view line, std::span<const IntEdit> edits, char* out) {
  // Each edit becomes a splice: replace [begin, end), or insert at begin a
  // new member (`last`: at the closing brace, after a comma).
  struct Splice {
    size_t begin, end;
    int index;
    const IntEdit* edit;
    bool insert, last;
  };
  // A record has at most 64 fields (schema.h), so at most 64 edits mean
  // something; they are kept on the stack, and found ones in a bit mask.
  assert(edits.size() <= 64);
  const size_t n = std::min<size_t>(edits.size(), 64);
  Splice splices[64];
  const uint64_t all = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  uint64_t placed = 0;
  if (AllAppend(type, line, edits)) {
    for (size_t e = 0; e < n; ++e) {
      splices[e] = {line.size() - 1, line.size() - 1, SchemaIndex(type, edits[e].name), &edits[e], true, true};
    }
    placed = all;
  }
  // Otherwise members are read until every edited field has been seen:
  // when all are present (rp-clocksync's t0/t1), the rest is not read.
  const size_t open = line.find('{');
  const size_t first = open == std::string_view::npos ? line.size() : open + 1;
  size_t i = first;
  Member m;
  bool any_member = placed == all;  // appends follow a member
  std::string unescaped;
  while (placed != all && NextMember(line, &i, &m)) {
    any_member = true;
    const std::string_view key =
        m.key.find('\\') == std::string_view::npos ? m.key : Unescaped(m.key, &unescaped);
    for (size_t e = 0; e < n; ++e) {
      // A repeated key: the first counts.
      if (((placed >> e) & 1) || !SameName(key, edits[e].name)) continue;
      splices[e] = {m.value_begin, m.value_end, 0, &edits[e], false, false};
      placed |= uint64_t{1} << e;
    }
  }
  if (placed != all) {
    // Missing fields go right after the last member that comes before them
    // in the schema (for lines in schema order, where Encode would put
    // them), so before the member after that one, or at the brace: a
    // second pass finds it.
    const size_t close = std::min(i, line.size());
    const uint64_t missing = all & ~placed;
    uint64_t waiting = missing;  // will go before the next member, if one comes
    for (size_t e = 0; e < n; ++e) {
      if (((missing >> e) & 1) == 0) continue;
      const int index = SchemaIndex(type, edits[e].name);
      assert(index >= 0 && index != kUnknown);
      splices[e] = {close, close, index, &edits[e], true, true};
    }
    i = first;
    while (NextMember(line, &i, &m)) {
      const int member_index = SchemaIndex(type, m.key);
      for (size_t e = 0; e < n; ++e) {
        if (((missing >> e) & 1) == 0) continue;
        Splice& s = splices[e];
        if (member_index <= s.index) {  // after this member
          s.begin = s.end = close;
          s.last = true;
          waiting |= uint64_t{1} << e;
        } else if ((waiting >> e) & 1) {  // before this one, unless one it follows comes later
          s.begin = s.end = m.key_at;
          s.last = false;
          waiting &= ~(uint64_t{1} << e);
        }
      }
    }
  }
  // In line order (few: an insertion sort).
  for (size_t j = 1; j < n; ++j) {
    for (size_t k = j; k > 0; --k) {
      const Splice& a = splices[k - 1];
      const Splice& b = splices[k];
      if (a.begin < b.begin || (a.begin == b.begin && a.index <= b.index)) break;
      std::swap(splices[k - 1], splices[k]);
    }
  }
  // Integers as Encode writes them (WriteInt).
  char* o = out;
  auto raw = [&o](const char* data, size_t n) {
    std::memcpy(o, data, n);
    o += n;
  };
  auto integer = [&o](int64_t value) { o = WriteInt(o, value); };
  size_t copied = 0;
  for (const Splice& s : std::span<const Splice>(splices, n)) {
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
  return o;
}

char* EditSpans(std::string_view line, std::span<const SpanEdit> edits, char* out) {
  char* o = out;
  size_t copied = 0;
  for (const SpanEdit& edit : edits) {
    assert(edit.at.begin >= copied && edit.at.end >= edit.at.begin && edit.at.end <= line.size());
    std::memcpy(o, line.data() + copied, edit.at.begin - copied);
    o += edit.at.begin - copied;
    copied = edit.at.end;
    if (!edit.name.empty()) {
      *o++ = ',';
      *o++ = '"';
      std::memcpy(o, edit.name.data(), edit.name.size());
      o += edit.name.size();
      *o++ = '"';
      *o++ = ':';
    }
    o = WriteInt(o, edit.value);
  }
  std::memcpy(o, line.data() + copied, line.size() - copied);
  o += line.size() - copied;
  *o++ = '\n';
  return o;
}

void EditInts(RecordType type, std::string_view line, std::span<const IntEdit> edits, std::string* out) {
  const size_t start = out->size();
  out->resize(start + MostEditedSize(line, edits));
  out->resize(EditInts(type, line, edits, out->data() + start) - out->data());
}

void EditSpans(std::string_view line, std::span<const SpanEdit> edits, std::string* out) {
  const size_t start = out->size();
  out->resize(start + MostEditedSize(line, edits));
  out->resize(EditSpans(line, edits, out->data() + start) - out->data());
}

}  // namespace rp::trace
