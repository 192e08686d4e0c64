// FNV-1a (64 bits): a small, fast hash of bytes for identities and
// signatures that only need to tell inputs apart. Chain calls to hash
// several pieces: Fnv1a(Fnv1a(kFnvOffset, a, n), b, m).
#ifndef RP_LIB_BASE_FNV_H_
#define RP_LIB_BASE_FNV_H_

#include <cstddef>
#include <cstdint>

namespace rp {

inline constexpr uint64_t kFnvOffset = 14695981039346656037ull;

inline uint64_t Fnv1a(uint64_t hash, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

}  // namespace rp

#endif  // RP_LIB_BASE_FNV_H_
