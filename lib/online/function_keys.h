// Function keys the same on every rank, for the online attribution of
// computation to sampled code (rp-record --online with samples; online-CP
// §2–3 per procedure). A sample's innermost application frame — the first
// one outside system, runtime and MPI modules (lib/profile/system_code.h)
// and outside the collector — is placed in its function by the module's
// ELF symbols (.symtab and .dynsym), and the function is keyed as
// SiteKeys keys its first instruction: module and file offset, so ranks
// running the same binaries agree, and rp-record names the key after the
// run as it names a call site (its symboliser gives the function).
//
//   FunctionKeys functions(site_keys, collector_path);
//   uint64_t pc = functions.ApplicationFrame(frames, depth);  // in the signal handler
//   uint64_t key = functions.Key(pc);  // later: reads the module's symbols once
#ifndef RP_LIB_ONLINE_FUNCTION_KEYS_H_
#define RP_LIB_ONLINE_FUNCTION_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/online/site_keys.h"

namespace rp::online {

class FunctionKeys {
 public:
  // `keys` must outlive this; frames in modules whose file is named
  // `own_module` (the collector's) are skipped as well.
  FunctionKeys(const SiteKeys& keys, std::string_view own_module);

  // The innermost application frame of a stack (innermost first, each an
  // address just after the instruction: return addresses, and the
  // sampler's interrupted instruction plus one), as the address of that
  // instruction (less one); 0 when there is none. Reads only what the
  // constructor built: a signal handler may call it.
  // `index` (optional): that frame's place in `frames`.
  uint64_t ApplicationFrame(const uint64_t* frames, size_t n, size_t* index = nullptr) const;

  // The key of the function holding `address`: SiteKeys' key of its first
  // instruction; the address's own key when no symbol covers it.
  uint64_t Key(uint64_t address);

  // A calling context: the function (its key) and the return addresses of
  // the frames above it (innermost first), as the keys every rank gives
  // them (`chain`: function key, then the callers' keys) and a 64-bit hash
  // of those that names the context on every rank.
  uint64_t Context(uint64_t function, const uint64_t* callers, size_t n, std::vector<uint64_t>* chain) const;

 private:
  struct Function {
    uint64_t begin, end;  // file offsets
  };
  struct Module {
    bool loaded = false;
    std::vector<Function> functions;  // sorted by begin
  };
  void Load(size_t module);

  const SiteKeys& keys_;
  std::vector<char> skip_;  // by module: library code or the collector
  std::vector<Module> modules_;
};

}  // namespace rp::online

#endif  // RP_LIB_ONLINE_FUNCTION_KEYS_H_
