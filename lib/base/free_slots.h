// A slot of `items` for a new item: one freed before (its index popped
// from `free`) or a new one at the end, default-constructed; its index.
// The node tables of path trees and parts reuse their slots this way, so
// memory follows what is live, not what was ever made.
//
//   const int32_t id = TakeSlot(&nodes_, &free_);
//   nodes_[id] = Node{...};
//   ...
//   nodes_[id] = Node{};
//   free_.push_back(id);
#ifndef RP_LIB_BASE_FREE_SLOTS_H_
#define RP_LIB_BASE_FREE_SLOTS_H_

#include <cstdint>
#include <vector>

namespace rp {

template <typename T>
int32_t TakeSlot(std::vector<T>* items, std::vector<int32_t>* free) {
  if (!free->empty()) {
    const int32_t id = free->back();
    free->pop_back();
    return id;
  }
  items->emplace_back();
  return static_cast<int32_t>(items->size() - 1);
}

}  // namespace rp

#endif  // RP_LIB_BASE_FREE_SLOTS_H_
