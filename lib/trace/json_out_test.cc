#include "lib/trace/json_out.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace rp::trace {
namespace {

std::string Written(int64_t value) {
  char buffer[24];
  return std::string(buffer, WriteInt(buffer, value));
}

std::string ToChars(int64_t value) {
  char buffer[24];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

// WriteInt must write exactly what std::to_chars writes: around every power
// of ten (where the eight-digit word path starts and ends), at the extremes
// and on random values of every length.
TEST(WriteInt, SameTextAsToChars) {
  std::vector<int64_t> values = {0, 1, -1, 9, 10, std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min(), 1000000050543, -1000000050975};
  for (int64_t p = 1; p <= std::numeric_limits<int64_t>::max() / 10; p *= 10) {
    for (int64_t d : {p - 1, p, p + 1, 10 * p - 1, 5 * p + 7}) {
      values.push_back(d);
      values.push_back(-d);
    }
  }
  std::mt19937_64 random(7);
  for (int digits = 1; digits <= 19; ++digits) {
    int64_t top = 1;
    for (int i = 0; i < digits - 1; ++i) top *= 10;
    for (int i = 0; i < 2000; ++i) {
      const int64_t v = top + static_cast<int64_t>(random() % static_cast<uint64_t>(9 * top));
      values.push_back(v);
      values.push_back(-v);
    }
  }
  for (int64_t v : values) ASSERT_EQ(Written(v), ToChars(v)) << v;
}

TEST(WriteInt, EightDigitsAsciiOfEveryDigitPattern) {
  for (uint32_t n : {0u, 1u, 10u, 99u, 100u, 9999u, 10000u, 12345678u, 99999999u, 90000009u, 10203040u}) {
    const uint64_t word = EightDigitsAscii(n);
    char text[9] = {};
    std::memcpy(text, &word, 8);
    char expected[9];
    std::snprintf(expected, sizeof expected, "%08u", n);
    EXPECT_STREQ(text, expected) << n;
  }
}

}  // namespace
}  // namespace rp::trace
