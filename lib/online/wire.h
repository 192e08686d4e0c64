// Fields of the online wire records (path.h, path_set.h): little-endian as
// the machine stores them (every machine this runs on is little-endian);
// memcpy keeps them free of alignment assumptions.
#ifndef RP_LIB_ONLINE_WIRE_H_
#define RP_LIB_ONLINE_WIRE_H_

#include <cstdint>
#include <cstring>

namespace rp::online::wire {

template <typename T>
void Put(uint8_t* at, T v) {
  std::memcpy(at, &v, sizeof v);
}

template <typename T>
T Get(const uint8_t* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

}  // namespace rp::online::wire

#endif  // RP_LIB_ONLINE_WIRE_H_
