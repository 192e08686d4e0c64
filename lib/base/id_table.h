// Values keyed by an MPI handle id (a request or message id in a trace).
// The collector's ids are small and reused once completed, so ids
// 0..4095 live in a vector indexed by id; other producers' ids (large or
// negative) go to a hash map. Lookups of small ids cost an index, not a
// hash, and no allocation once the vector has grown.
//
//   IdTable<Request> requests;
//   requests.Get(7).active = true;      // created (value-initialised) if absent
//   if (Request* r = requests.Find(7)) ...
//   requests.Erase(7);
//   requests.Clear();                   // keeps its memory for reuse
#ifndef RP_LIB_BASE_ID_TABLE_H_
#define RP_LIB_BASE_ID_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace rp {

template <typename T>
class IdTable {
 public:
  T* Find(int64_t id) {
    if (!Dense(id)) {
      auto it = sparse_.find(id);
      return it == sparse_.end() ? nullptr : &it->second;
    }
    if (static_cast<size_t>(id) >= dense_.size() || !dense_[id].exists) return nullptr;
    return &dense_[id].value;
  }
  T& Get(int64_t id) {
    if (!Dense(id)) return sparse_[id];
    if (static_cast<size_t>(id) >= dense_.size()) dense_.resize(id + 1);
    Slot& slot = dense_[id];
    if (!slot.exists) slot = Slot{T{}, true};
    if (static_cast<size_t>(id) >= used_) used_ = id + 1;
    return slot.value;
  }
  void Erase(int64_t id) {
    if (!Dense(id)) sparse_.erase(id);
    else if (static_cast<size_t>(id) < dense_.size()) dense_[id].exists = false;
  }
  void Clear() {  // as fast as the ids used since the last Clear are few
    for (size_t id = 0; id < used_; ++id) dense_[id].exists = false;
    used_ = 0;
    sparse_.clear();
  }

 private:
  struct Slot {
    T value{};
    bool exists = false;
  };
  static bool Dense(int64_t id) { return id >= 0 && id < kDenseIds; }
  static constexpr int64_t kDenseIds = 1 << 12;

  std::vector<Slot> dense_;
  size_t used_ = 0;  // dense ids below this may exist
  std::unordered_map<int64_t, T> sparse_;
};

}  // namespace rp

#endif  // RP_LIB_BASE_ID_TABLE_H_
