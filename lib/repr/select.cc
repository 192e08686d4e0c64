#include "lib/repr/select.h"

namespace rp::repr {

void Choose(Select select, int n, int k, std::vector<int>* out) {
  out->clear();
  if (n <= k) {
    for (int i = 0; i < n; ++i) out->push_back(i);
    return;
  }
  if (select == Select::kTopK) {
    const int top = k / 2;
    for (int i = 0; i < top; ++i) out->push_back(i);
    for (int i = n - (k - top); i < n; ++i) out->push_back(i);
    return;
  }
  // (2 j (n - 1) + (k - 1)) / (2 (k - 1)): j (n - 1) / (k - 1) rounded, half up.
  for (int j = 0; j < k; ++j) {
    out->push_back(static_cast<int>((2 * int64_t{j} * (n - 1) + (k - 1)) / (2 * int64_t{k - 1})));
  }
}

double NominalPercentile(int j, int k) { return k > 1 ? 100.0 * (1.0 - static_cast<double>(j) / (k - 1)) : 100.0; }

int ProfileSlot(Select select, int k, int position, int total) {
  if (total <= 1) return 0;
  if (select == Select::kTopK && total >= k) {
    const int top = k / 2;
    return position < top ? position : k - (total - position);
  }
  // position (k - 1) / (total - 1), rounded half up: with repr over at
  // least k candidates, the inverse of Choose's round(j (total - 1) / (k - 1)).
  return static_cast<int>((2 * int64_t{position} * (k - 1) + (total - 1)) / (2 * int64_t{total - 1}));
}

std::vector<std::pair<int, int>> DiffPairs(Select select, int k) {
  std::vector<std::pair<int, int>> pairs{{0, k - 1}};
  if (select == Select::kTopK) return pairs;
  const std::pair<int, int> middle = k % 2 ? std::pair<int, int>{k / 2 - 1, k / 2 + 1} : std::pair<int, int>{k / 2 - 1, k / 2};
  if (middle != pairs[0] && middle.first >= 0) pairs.push_back(middle);
  return pairs;
}

}  // namespace rp::repr
