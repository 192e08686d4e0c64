// The rp version every tool reports (--version) and writes into the
// header's producer list.
#ifndef RP_LIB_BASE_VERSION_H_
#define RP_LIB_BASE_VERSION_H_

namespace rp {
inline constexpr char kVersion[] = "0.1.0";
}  // namespace rp

#endif  // RP_LIB_BASE_VERSION_H_
