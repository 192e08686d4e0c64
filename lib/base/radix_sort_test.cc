#include "lib/base/radix_sort.h"

#include <gtest/gtest.h>

#include <random>

namespace rp {
namespace {

struct Item {
  uint64_t key;
  uint32_t index;  // input position, to see that equal keys keep their order
};

// Radix order must be std::stable_sort's, for every spread of keys: equal,
// narrow (a few digits), wide (all 64 bits), and below the size where the
// sort compares instead.
TEST(RadixSort, SortsAsStableSortDoes) {
  std::mt19937_64 random(7);
  for (size_t n : {0, 1, 2, 255, 256, 257, 1000, 5000}) {
    for (uint64_t range : {uint64_t{1}, uint64_t{3}, uint64_t{2048}, uint64_t{2049}, uint64_t{1} << 20,
                           uint64_t{1} << 40, UINT64_MAX}) {
      std::vector<Item> items(n), scratch;
      const uint64_t base = random();
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t step = range == UINT64_MAX ? random() : random() % range;
        items[i] = {range == UINT64_MAX ? step : base / 2 + step, i};
      }
      std::vector<Item> expected = items;
      std::stable_sort(expected.begin(), expected.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
      RadixSortStable(items, scratch, [](const Item& i) { return i.key; });
      ASSERT_EQ(items.size(), expected.size());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(items[i].key, expected[i].key) << "n " << n << " range " << range << " at " << i;
        ASSERT_EQ(items[i].index, expected[i].index) << "n " << n << " range " << range << " at " << i;
      }
    }
  }
}

TEST(RadixSort, OrderedKeySortsSignedValues) {
  const int64_t values[] = {INT64_MIN, -5, -1, 0, 1, 7, INT64_MAX};
  for (size_t i = 1; i < std::size(values); ++i) {
    EXPECT_LT(OrderedKey(values[i - 1]), OrderedKey(values[i]));
  }
}

}  // namespace
}  // namespace rp
