// Turns the collector's return addresses into call sites: a rank's address
// is first placed in a module (from the rank's saved /proc/self/maps and the
// module's ELF program headers, so address-space randomisation does not
// matter), then the module-relative address is looked up once in the
// module's symbols and DWARF line table (libdw). An address inside inlined
// code gives a chain of frames: the inlined function at its line, then the
// function it was inlined into at the line of the inlined call, and so on.
#ifndef RP_LIB_RECORDER_SYMBOLIZER_H_
#define RP_LIB_RECORDER_SYMBOLIZER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rp::recorder {

struct Location {
  int32_t module = -1;  // -1: not inside any saved mapping
  uint64_t vaddr = 0;   // address inside the module's ELF file
  bool operator<(const Location& o) const {
    return module != o.module ? module < o.module : vaddr < o.vaddr;
  }
  bool operator==(const Location& o) const = default;
};

struct Symbol {
  std::string function;  // empty when unknown
  std::string file;
  int64_t line = 0;      // 0 when unknown
};

class Symbolizer {
 public:
  Symbolizer();
  ~Symbolizer();

  // Adds a rank's executable mappings (the text of a kMaps record).
  void AddMaps(int rank, std::string_view maps);
  Location Locate(int rank, uint64_t address) const;
  const std::string& ModulePath(int32_t module) const;
  // Function, file and line of the call whose return address is `vaddr`,
  // then of each function it is inlined into: innermost first, at least one.
  const std::vector<Symbol>& Symbolize(const Location& location);

 private:
  struct Module;
  struct Range {
    uint64_t start, end;
    int32_t module;
    int64_t bias;  // runtime address - ELF vaddr
  };
  int32_t ModuleIndex(const std::string& path);

  std::vector<Module> modules_;
  std::map<std::string, int32_t> module_ids_;
  std::map<int, std::vector<Range>> ranges_;  // by rank, sorted by start
};

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_SYMBOLIZER_H_
