// A small open-addressing hash map from MPI handles (pointers or integers,
// seen as uint64) to int32 values, for the collector's hot path: lookups and
// updates never allocate; the table only grows (rehash) when it is 60% full.
#ifndef RP_COLLECTOR_HANDLE_MAP_H_
#define RP_COLLECTOR_HANDLE_MAP_H_

#include <cstdint>
#include <vector>

namespace rp::collector {

class HandleMap {
 public:
  explicit HandleMap(size_t capacity = 256) { Reset(capacity); }

  // The value for `key`, or -1.
  int32_t Find(uint64_t key) const {
    for (size_t i = Slot(key);; i = (i + 1) & mask_) {
      const Entry& e = table_[i];
      if (e.state == kEmpty) return -1;
      if (e.state == kFull && e.key == key) return e.value;
    }
  }

  void Put(uint64_t key, int32_t value) {
    if ((used_ + 1) * 10 > table_.size() * 6) Grow();
    size_t tomb = SIZE_MAX;
    for (size_t i = Slot(key);; i = (i + 1) & mask_) {
      Entry& e = table_[i];
      if (e.state == kFull && e.key == key) {
        e.value = value;
        return;
      }
      if (e.state == kDeleted && tomb == SIZE_MAX) tomb = i;
      if (e.state == kEmpty) {
        Entry& target = tomb != SIZE_MAX ? table_[tomb] : e;
        if (tomb == SIZE_MAX) ++used_;
        target = Entry{key, value, kFull};
        return;
      }
    }
  }

  // Removes `key`; returns its value or -1.
  int32_t Erase(uint64_t key) {
    for (size_t i = Slot(key);; i = (i + 1) & mask_) {
      Entry& e = table_[i];
      if (e.state == kEmpty) return -1;
      if (e.state == kFull && e.key == key) {
        e.state = kDeleted;
        return e.value;
      }
    }
  }

 private:
  enum State : uint8_t { kEmpty, kFull, kDeleted };
  struct Entry {
    uint64_t key = 0;
    int32_t value = 0;
    State state = kEmpty;
  };

  size_t Slot(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ull >> 20) & mask_; }

  void Reset(size_t capacity) {
    table_.assign(capacity, Entry{});
    mask_ = capacity - 1;
    used_ = 0;
  }

  void Grow() {
    std::vector<Entry> old = std::move(table_);
    size_t live = 0;
    for (const Entry& e : old) live += e.state == kFull;
    size_t capacity = old.size();
    while (live * 10 * 2 > capacity * 6) capacity *= 2;  // stay under 30% after
    Reset(capacity);
    for (const Entry& e : old) {
      if (e.state == kFull) Put(e.key, e.value);
    }
  }

  std::vector<Entry> table_;
  size_t mask_ = 0;
  size_t used_ = 0;  // full + deleted slots
};

}  // namespace rp::collector

#endif  // RP_COLLECTOR_HANDLE_MAP_H_
