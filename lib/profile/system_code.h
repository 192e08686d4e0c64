// Which code is library code, charged to the application function calling
// it: system, language-runtime and MPI modules (libc, libm, libstdc++,
// libmpi, Open MPI's and MPICH's plugins, the dynamic loader, ...) and
// source files of system headers. Shared by the offline attribution
// (frames.h) and the collector's online one, so both name the same code.
#ifndef RP_LIB_PROFILE_SYSTEM_CODE_H_
#define RP_LIB_PROFILE_SYSTEM_CODE_H_

#include <string_view>

namespace rp::profile {

// True for modules whose frames are charged to their caller.
bool IsSystemModule(std::string_view module);
// True for source files of system headers (inlined library code).
bool IsSystemSource(std::string_view file);

}  // namespace rp::profile

#endif  // RP_LIB_PROFILE_SYSTEM_CODE_H_
