#include "lib/online/function_keys.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>

#include "lib/base/fnv.h"
#include "lib/profile/system_code.h"

namespace rp::online {
namespace {

// `path` names the file `name` (its last component).
bool Names(std::string_view path, std::string_view name) {
  if (name.empty() || path.size() < name.size() || path.substr(path.size() - name.size()) != name) return false;
  return path.size() == name.size() || path[path.size() - name.size() - 1] == '/';
}

struct Segment {
  uint64_t vaddr, offset, size;
};

}  // namespace

FunctionKeys::FunctionKeys(const SiteKeys& keys, std::string_view own_module)
    : keys_(keys), modules_(keys.modules().size()) {
  for (const std::string& path : keys.modules()) {
    skip_.push_back(profile::IsSystemModule(path) || Names(path, own_module));
  }
}

uint64_t FunctionKeys::ApplicationFrame(const uint64_t* frames, size_t n, size_t* index) const {
  for (size_t i = 0; i < n; ++i) {
    // A return address lies after its call: the call is the byte before.
    const uint64_t address = frames[i] - 1;
    size_t module = 0;
    uint64_t offset = 0;
    if (!keys_.Locate(address, &module, &offset)) continue;  // JIT code, a stack gone wrong
    if (skip_[module]) continue;
    if (index) *index = i;
    return address;
  }
  return 0;
}

uint64_t FunctionKeys::Context(uint64_t function, const uint64_t* callers, size_t n,
                               std::vector<uint64_t>* chain) const {
  chain->clear();
  chain->push_back(function);
  for (size_t i = 0; i < n; ++i) chain->push_back(keys_.Key(callers[i]));
  return Fnv1a(kFnvOffset, chain->data(), chain->size() * sizeof(uint64_t));
}

uint64_t FunctionKeys::Key(uint64_t address) {
  size_t module = 0;
  uint64_t offset = 0;
  if (!keys_.Locate(address, &module, &offset)) return keys_.Key(address);
  Module& m = modules_[module];
  if (!m.loaded) Load(module);
  auto it = std::upper_bound(m.functions.begin(), m.functions.end(), offset,
                             [](uint64_t o, const Function& f) { return o < f.begin; });
  if (it == m.functions.begin() || offset >= (it - 1)->end) return keys_.KeyOf(module, offset);
  return keys_.KeyOf(module, (it - 1)->begin);
}

// The module's functions from its ELF symbol tables, placed at their file
// offsets through the loadable segments. A module that cannot be read
// keeps no functions: its addresses key themselves.
void FunctionKeys::Load(size_t module) {
  Module& m = modules_[module];
  m.loaded = true;
  const int fd = ::open(keys_.modules()[module].c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  std::vector<Segment> segments;
  size_t headers = 0;
  if (elf != nullptr && elf_getphdrnum(elf, &headers) == 0) {
    for (size_t i = 0; i < headers; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, static_cast<int>(i), &ph) != nullptr && ph.p_type == PT_LOAD) {
        segments.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
      }
    }
  }
  Elf_Scn* section = nullptr;
  while (elf != nullptr && (section = elf_nextscn(elf, section)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(section, &sh) == nullptr || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
        sh.sh_entsize == 0) {
      continue;
    }
    Elf_Data* data = elf_getdata(section, nullptr);
    const size_t n = data != nullptr ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      const int type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || sym.st_size == 0) continue;
      for (const Segment& s : segments) {
        if (sym.st_value >= s.vaddr && sym.st_value < s.vaddr + s.size) {
          const uint64_t begin = sym.st_value - s.vaddr + s.offset;
          m.functions.push_back({begin, begin + sym.st_size});
          break;
        }
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  ::close(fd);
  // Both tables name most functions, and aliases share an address: one each.
  std::sort(m.functions.begin(), m.functions.end(),
            [](const Function& a, const Function& b) { return a.begin != b.begin ? a.begin < b.begin : a.end > b.end; });
  m.functions.erase(std::unique(m.functions.begin(), m.functions.end(),
                                [](const Function& a, const Function& b) { return a.begin == b.begin; }),
                    m.functions.end());
}

}  // namespace rp::online
