#include "lib/recorder/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace rp::recorder {
namespace {

// The ELF vaddr at which file offset `offset` is loaded, from the PT_LOAD
// segment containing it; -1 when the file cannot be read.
int64_t VaddrOfOffset(const std::string& path, uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int64_t vaddr = -1;
  elf_version(EV_CURRENT);
  if (Elf* elf = elf_begin(fd, ELF_C_READ, nullptr)) {
    size_t count = 0;
    if (elf_getphdrnum(elf, &count) == 0) {
      for (size_t i = 0; i < count; ++i) {
        GElf_Phdr phdr;
        if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_LOAD) continue;
        const uint64_t page_offset = phdr.p_offset & ~uint64_t{0xFFF};
        if (offset >= page_offset && offset < phdr.p_offset + phdr.p_filesz) {
          vaddr = static_cast<int64_t>((phdr.p_vaddr & ~uint64_t{0xFFF}) + (offset - page_offset));
          break;
        }
      }
    }
    elf_end(elf);
  }
  ::close(fd);
  return vaddr;
}

std::string Demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out(demangled);
  std::free(demangled);
  return out;
}

}  // namespace

struct Symbolizer::Module {
  std::string path;
  Dwfl* dwfl = nullptr;  // the module alone, loaded at its ELF vaddrs
  bool tried = false;
  std::map<uint64_t, std::vector<Symbol>> cache;
};

Symbolizer::Symbolizer() = default;

Symbolizer::~Symbolizer() {
  for (Module& m : modules_) {
    if (m.dwfl) dwfl_end(m.dwfl);
  }
}

const std::string& Symbolizer::ModulePath(int32_t module) const { return modules_[module].path; }

int32_t Symbolizer::ModuleIndex(const std::string& path) {
  auto [it, inserted] = module_ids_.emplace(path, static_cast<int32_t>(modules_.size()));
  if (inserted) {
    modules_.emplace_back();
    modules_.back().path = path;
  }
  return it->second;
}

void Symbolizer::AddMaps(int rank, std::string_view maps) {
  std::vector<Range>& ranges = ranges_[rank];
  while (!maps.empty()) {
    const size_t nl = maps.find('\n');
    std::string line(maps.substr(0, nl));
    maps = nl == std::string_view::npos ? std::string_view() : maps.substr(nl + 1);
    // start-end perms offset dev inode path
    unsigned long long start = 0, end = 0, offset = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &offset,
                    &path_at) < 4 ||
        path_at <= 0 || static_cast<size_t>(path_at) >= line.size()) {
      continue;
    }
    const std::string path = line.substr(path_at);
    if (path.empty() || path[0] != '/') continue;
    const int64_t vaddr = VaddrOfOffset(path, offset);
    if (vaddr < 0) continue;
    Range range{start, end, ModuleIndex(path), static_cast<int64_t>(start) - vaddr};
    if (std::none_of(ranges.begin(), ranges.end(),
                     [&](const Range& r) { return r.start == range.start && r.end == range.end; })) {
      ranges.push_back(range);
    }
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
}

Location Symbolizer::Locate(int rank, uint64_t address) const {
  auto it = ranges_.find(rank);
  if (it == ranges_.end()) return Location{-1, address};
  const std::vector<Range>& ranges = it->second;
  auto after = std::upper_bound(ranges.begin(), ranges.end(), address,
                                [](uint64_t a, const Range& r) { return a < r.start; });
  // A return address can equal the end of its range (call as the last
  // instruction), so compare with address - 1.
  if (after == ranges.begin()) return Location{-1, address};
  const Range& r = *(after - 1);
  if (address - 1 >= r.end) return Location{-1, address};
  return Location{r.module, static_cast<uint64_t>(static_cast<int64_t>(address) - r.bias)};
}

namespace {

// The source file of an inlined call (DW_AT_call_file) and its line.
void CallSite(Dwarf_Die* cu, Dwarf_Die* inlined, std::string* file, int64_t* line) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  *line = dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &value) == 0 ? value : 0;
  file->clear();
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &value) == 0 &&
      dwarf_getsrcfiles(cu, &files, &count) == 0 && value < count) {
    if (const char* name = dwarf_filesrc(files, value, nullptr, nullptr)) *file = name;
  }
}

}  // namespace

const std::vector<Symbol>& Symbolizer::Symbolize(const Location& location) {
  static const std::vector<Symbol> kUnknown(1);
  if (location.module < 0) return kUnknown;
  Module& m = modules_[location.module];
  auto cached = m.cache.find(location.vaddr);
  if (cached != m.cache.end()) return cached->second;
  if (!m.tried) {
    m.tried = true;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = nullptr,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = nullptr,
    };
    m.dwfl = dwfl_begin(&callbacks);
    if (m.dwfl) {
      dwfl_report_begin(m.dwfl);
      if (dwfl_report_elf(m.dwfl, m.path.c_str(), m.path.c_str(), -1, 0, false) == nullptr) {
        dwfl_end(m.dwfl);
        m.dwfl = nullptr;
      } else {
        dwfl_report_end(m.dwfl, nullptr, nullptr);
      }
    }
  }
  std::vector<Symbol> frames;
  const Dwarf_Addr addr = location.vaddr - 1;  // inside the call instruction
  if (Dwfl_Module* mod = m.dwfl ? dwfl_addrmodule(m.dwfl, addr) : nullptr) {
    Symbol innermost;
    innermost.function = Demangle(dwfl_module_addrname(mod, addr));
    if (Dwfl_Line* line = dwfl_module_getsrc(mod, addr)) {
      int lineno = 0;
      if (const char* file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr)) {
        innermost.file = file;
        innermost.line = lineno;
      }
    }
    Dwarf_Addr bias = 0;
    Dwarf_Die* cu = dwfl_module_addrdie(mod, addr, &bias);
    Dwarf_Die* scopes = nullptr;
    int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
    // dwarf_getscopes continues into an inlined function's abstract
    // definition; the concrete nesting (what the code was inlined into)
    // comes from the innermost DIE's parents, as eu-addr2line -i does.
    if (n > 0) {
      Dwarf_Die innermost_die;
      Dwarf_Addr dwarf_bias = 0;
      Dwarf* dwarf = dwfl_module_getdwarf(mod, &dwarf_bias);
      const bool found = dwarf != nullptr &&
                         dwarf_offdie(dwarf, dwarf_dieoffset(&scopes[0]), &innermost_die) != nullptr;
      std::free(scopes);
      scopes = nullptr;
      n = found ? dwarf_getscopes_die(&innermost_die, &scopes) : 0;
    }
    std::string file = innermost.file;
    int64_t line = innermost.line;
    for (int i = 0; i < n; ++i) {
      const int tag = dwarf_tag(&scopes[i]);
      if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine) continue;
      Symbol frame;
      const char* name = dwarf_diename(&scopes[i]);
      frame.function = name ? Demangle(name) : innermost.function;
      frame.file = file;
      frame.line = line;
      frames.push_back(frame);
      if (tag == DW_TAG_subprogram) break;
      CallSite(cu, &scopes[i], &file, &line);
    }
    std::free(scopes);
    if (frames.empty()) frames.push_back(innermost);
  } else {
    frames.emplace_back();
  }
  return m.cache.emplace(location.vaddr, std::move(frames)).first->second;
}

}  // namespace rp::recorder
