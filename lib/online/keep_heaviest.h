// A bounded list that keeps the heaviest entries it is given (the path's
// call sites, ranks and functions; a kept path's profile): an entry not
// held when the list is full takes the lightest one's place, whose weight
// goes to `evict` (summed apart, or dropped). An entry that keeps coming
// back therefore gets in and grows, whatever its first part weighed.
#ifndef RP_LIB_ONLINE_KEEP_HEAVIEST_H_
#define RP_LIB_ONLINE_KEEP_HEAVIEST_H_

#include <cstddef>
#include <vector>

namespace rp::online {

// The entry of `v` that `is` names (the last one used tried first: calls
// repeat), added as `fresh` when missing; once `v` holds `cap` entries the
// lightest by `weight` is handed to `evict` and gives way to it.
template <typename T, typename Is, typename Weight, typename Evict>
T& FindOrAdd(std::vector<T>& v, size_t& last, size_t cap, const T& fresh, Is is, Weight weight, Evict evict) {
  if (last < v.size() && is(v[last])) return v[last];
  for (size_t i = 0; i < v.size(); ++i) {
    if (is(v[i])) return v[last = i];
  }
  if (v.size() < cap) {
    v.push_back(fresh);
    return v[last = v.size() - 1];
  }
  size_t lightest = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    if (weight(v[i]) < weight(v[lightest])) lightest = i;
  }
  evict(v[lightest]);
  v[lightest] = fresh;
  return v[last = lightest];
}

}  // namespace rp::online

#endif  // RP_LIB_ONLINE_KEEP_HEAVIEST_H_
