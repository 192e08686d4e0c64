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

}  // namespace rp::repr
