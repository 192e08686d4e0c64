#include "lib/online/site_keys.h"

#include <algorithm>
#include <charconv>

namespace rp::online {
namespace {

// FNV-1a: stable across runs and machines (std::hash need not be).
uint32_t Hash(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h & 0x7fffffffu;  // the top bit of a key marks unmapped addresses
}

bool Hex(std::string_view s, uint64_t* v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v, 16);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

SiteKeys::SiteKeys(std::string_view maps) {
  size_t at = 0;
  while (at < maps.size()) {
    size_t eol = maps.find('\n', at);
    if (eol == std::string_view::npos) eol = maps.size();
    std::string_view line = maps.substr(at, eol - at);
    at = eol + 1;
    // start-end perms offset dev inode path
    std::string_view fields[5];
    size_t pos = 0;
    bool ok = true;
    for (auto& f : fields) {
      while (pos < line.size() && line[pos] == ' ') ++pos;
      const size_t end = std::min(line.find(' ', pos), line.size());
      f = line.substr(pos, end - pos);
      ok &= !f.empty();
      pos = end;
    }
    while (pos < line.size() && line[pos] == ' ') ++pos;
    const std::string_view path = line.substr(pos);
    const size_t dash = fields[0].find('-');
    Range r{};
    if (!ok || path.empty() || dash == std::string_view::npos || !Hex(fields[0].substr(0, dash), &r.start) ||
        !Hex(fields[0].substr(dash + 1), &r.end) || !Hex(fields[2], &r.offset) || r.end <= r.start) {
      continue;
    }
    auto known = std::find(modules_.begin(), modules_.end(), path);
    r.module = static_cast<size_t>(known - modules_.begin());
    if (known == modules_.end()) {
      modules_.emplace_back(path);
      hashes_.push_back(Hash(path));
    }
    r.hash = hashes_[r.module];
    ranges_.push_back(r);
  }
  std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
}

uint64_t SiteKeys::Key(uint64_t address) const {
  size_t module = 0;
  uint64_t offset = 0;
  if (!Locate(address, &module, &offset)) return address | kUnmapped;
  return KeyOf(module, offset);
}

bool SiteKeys::Locate(uint64_t address, size_t* module, uint64_t* offset) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                             [](uint64_t a, const Range& r) { return a < r.start; });
  if (it == ranges_.begin() || address >= (it - 1)->end) return false;
  const Range& r = *(it - 1);
  *module = r.module;
  *offset = address - r.start + r.offset;
  return true;
}

const std::string* SiteKeys::Module(uint64_t key) const {
  if (key & kUnmapped) return nullptr;
  const uint32_t hash = static_cast<uint32_t>(key >> 32);
  for (size_t i = 0; i < hashes_.size(); ++i) {
    if (hashes_[i] == hash) return &modules_[i];
  }
  return nullptr;
}

uint64_t SiteKeys::Address(uint64_t key) const {
  if (key & kUnmapped) return key & ~kUnmapped;
  const uint32_t hash = static_cast<uint32_t>(key >> 32);
  const uint64_t offset = FileOffset(key);
  for (const Range& r : ranges_) {
    if (r.hash == hash && offset >= r.offset && offset < r.offset + (r.end - r.start)) {
      return r.start + (offset - r.offset);
    }
  }
  return 0;
}

}  // namespace rp::online
