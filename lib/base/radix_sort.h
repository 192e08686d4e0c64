// A stable sort by an unsigned integer key, in a few linear passes (least
// significant digit first) instead of n log n comparisons: for long arrays
// of small items whose keys span a narrow range, such as a window's records
// by time (a millisecond is 20 bits) or by rank.
//
//   std::vector<Item> items, scratch;
//   RadixSortStable(items, scratch, [](const Item& i) { return i.rank; });
//
// Items of equal key keep their order. `scratch` is memory to reuse.
#ifndef RP_LIB_BASE_RADIX_SORT_H_
#define RP_LIB_BASE_RADIX_SORT_H_

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rp {

// An int64 as a key that sorts the same way.
inline uint64_t OrderedKey(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }

template <typename T, typename KeyOf>
void RadixSortStable(std::vector<T>& items, std::vector<T>& scratch, KeyOf key_of) {
  // Below this, counting costs more than comparing.
  constexpr size_t kSmall = 256;
  if (items.size() < kSmall) {
    std::stable_sort(items.begin(), items.end(), [&](const T& a, const T& b) { return key_of(a) < key_of(b); });
    return;
  }
  uint64_t low = UINT64_MAX, high = 0;
  for (const T& item : items) {
    const uint64_t key = key_of(item);
    low = std::min(low, key);
    high = std::max(high, key);
  }
  if (low == high) return;
  // Digits of at most 11 bits: their counts (8 KB) stay in the L1 cache.
  constexpr int kMaxDigitBits = 11;
  const int bits = 64 - __builtin_clzll(high - low);
  const int passes = (bits + kMaxDigitBits - 1) / kMaxDigitBits;
  const int digit_bits = (bits + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << digit_bits) - 1;
  uint32_t count[size_t{1} << kMaxDigitBits];
  scratch.resize(items.size());
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = pass * digit_bits;
    auto digit = [&](const T& item) { return ((key_of(item) - low) >> shift) & mask; };
    std::fill(count, count + mask + 1, 0);
    for (const T& item : items) ++count[digit(item)];
    uint32_t at = 0;
    for (uint64_t d = 0; d <= mask; ++d) {
      const uint32_t n = count[d];
      count[d] = at;
      at += n;
    }
    for (const T& item : items) scratch[count[digit(item)]++] = item;
    items.swap(scratch);
  }
}

}  // namespace rp

#endif  // RP_LIB_BASE_RADIX_SORT_H_
