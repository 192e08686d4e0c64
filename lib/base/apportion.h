// A length split in proportion to weights (sample attribution: offline in
// lib/profile, online in the collector), exactly: the parts add up to it.
#ifndef RP_LIB_BASE_APPORTION_H_
#define RP_LIB_BASE_APPORTION_H_

#include <cstdint>

namespace rp {

// Splits `length` in proportion to weights given one at a time, rounding
// the running sum, so that the parts add up to `length` exactly.
class Apportion {
 public:
  Apportion(int64_t length, __int128 total) : length_(length), total_(total) {}
  int64_t Next(int64_t weight) {
    sum_ += weight;
    const int64_t upto = total_ > 0 ? static_cast<int64_t>(sum_ * length_ / total_) : 0;
    const int64_t part = upto - given_;
    given_ = upto;
    return part;
  }

 private:
  int64_t length_;
  __int128 total_, sum_ = 0;
  int64_t given_ = 0;
};

}  // namespace rp

#endif  // RP_LIB_BASE_APPORTION_H_
