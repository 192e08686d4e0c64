// Which paths a join keeps (representative paths paper §4, Figure 5): of
// n candidate paths sorted from the most to the least costly, k.
//
//   repr  uniformly spaced percentiles, the first the most costly (100%)
//         and the last the least (0%): candidate round(j (n - 1) / (k - 1))
//         for j = 0 .. k - 1 (half rounds up);
//   topk  the k/2 most and the k - k/2 least costly.
//
// With n <= k every candidate is kept. Plain arithmetic on indices, no
// graph: the collector's in-run selection can use it as it is.
#ifndef RP_LIB_REPR_SELECT_H_
#define RP_LIB_REPR_SELECT_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace rp::repr {

enum class Select { kRepr, kTopK };

inline constexpr int kMinPaths = 2, kMaxPaths = 64;

// The indices (increasing) of the candidates to keep, into *out.
void Choose(Select select, int n, int k, std::vector<int>* out);

// The percentile of path cost that kept path j of k stands for with repr:
// 100 (1 - j / (k - 1)).
double NominalPercentile(int j, int k);

// The profile slot of the path kept at `position` of `total` candidates:
// the slot whose nominal percentile is nearest its place; with all k
// kept, its order (path profiles, §6: slot j means the same in every
// phase).
int ProfileSlot(Select select, int k, int position, int total);

// The pairs of slots whose differences path_diff records show: 100%
// against 0%, and with repr the two around the median.
std::vector<std::pair<int, int>> DiffPairs(Select select, int k);

}  // namespace rp::repr

#endif  // RP_LIB_REPR_SELECT_H_
