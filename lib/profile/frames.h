// What attribution needs to know of each call site (site record): where it
// is, and whether it is library code that is charged to the application
// function calling it.
//
// A frame is library code when its module is a system, language-runtime
// or MPI library (libc, libm, libstdc++, libmpi, Open MPI's and MPICH's
// plugins, the dynamic loader, ...), or when it is inlined code from a
// system header (/usr/include: std::vector's operator[] inlined into a
// loop). Application functions inlined into their caller keep their own
// name: they are code the user can change. The collector's frames never
// reach the trace (rp-record drops them).
#ifndef RP_LIB_PROFILE_FRAMES_H_
#define RP_LIB_PROFILE_FRAMES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/profile/system_code.h"
#include "lib/trace/record.h"

namespace rp::profile {

struct Frame {
  std::string fn;      // "" when the site record does not say
  std::string file;
  int64_t line = 0;    // 0 when unknown
  std::string module;
  std::string addr;
  bool system_module = false;
};

// The site dictionary of a stream, by site id.
class Frames {
 public:
  explicit Frames(const std::vector<trace::SiteRecord>& sites);
  // nullptr for an id no site record defines.
  const Frame* Find(int64_t site) const {
    auto it = frames_.find(site);
    return it != frames_.end() ? &it->second : nullptr;
  }
  // Whether stack[i] (innermost first) is inlined into stack[i + 1]: the
  // symbolizer expands one return address into the chain of functions
  // inlined there, all with the same module and address.
  bool InlinedInto(int64_t inner, int64_t outer) const;

 private:
  std::unordered_map<int64_t, Frame> frames_;
};

}  // namespace rp::profile

#endif  // RP_LIB_PROFILE_FRAMES_H_
