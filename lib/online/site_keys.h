// Call-site keys that are the same on every rank: a return address placed
// in its module by the process's executable mappings (/proc/self/maps, the
// text the collector saves) and keyed by the module's path and the
// address's offset in the module's file. Address-space randomisation moves
// a module, not its file offsets, so ranks running the same binaries get
// the same keys, and a path merged from several ranks adds up per site.
// The file offset turns into an ELF address and then function:line after
// the run (lib/recorder's symboliser, given the module's path).
//
//   SiteKeys keys(maps_text);
//   uint64_t key = keys.Key(return_address);
//   const std::string* module = keys.Module(key);  // its file, for naming
#ifndef RP_LIB_ONLINE_SITE_KEYS_H_
#define RP_LIB_ONLINE_SITE_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rp::online {

class SiteKeys {
 public:
  // Lines "start-end perms offset dev inode path" (hex numbers); lines
  // that do not parse are passed over.
  explicit SiteKeys(std::string_view maps);

  // 32 bits of the module path's hash, then 32 of the file offset; an
  // address in no mapping keeps its value with the top bit set (not
  // comparable across ranks; named "?" later).
  uint64_t Key(uint64_t address) const;
  // The module path of a key, nullptr for an address outside every mapping.
  const std::string* Module(uint64_t key) const;
  // The address a key stands for in this process (0 when its module is not
  // mapped here); the inverse of Key.
  uint64_t Address(uint64_t key) const;
  static uint32_t FileOffset(uint64_t key) { return static_cast<uint32_t>(key); }
  static constexpr uint64_t kUnmapped = uint64_t{1} << 63;

  // The module (index into modules()) and file offset of an address;
  // false outside every mapping. Reads only what the constructor built, so
  // a signal handler may call it.
  bool Locate(uint64_t address, size_t* module, uint64_t* offset) const;
  const std::vector<std::string>& modules() const { return modules_; }
  // The key of `offset` in module `module`.
  uint64_t KeyOf(size_t module, uint64_t offset) const {
    return static_cast<uint64_t>(hashes_[module]) << 32 | static_cast<uint32_t>(offset);
  }

 private:
  struct Range {
    uint64_t start, end, offset;
    uint32_t hash;
    size_t module;
  };
  std::vector<Range> ranges_;  // sorted by start
  std::vector<std::string> modules_;
  std::vector<uint32_t> hashes_;  // of modules_
};

}  // namespace rp::online

#endif  // RP_LIB_ONLINE_SITE_KEYS_H_
