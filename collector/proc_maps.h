// The executable mappings of this process (the "r-xp" lines of
// /proc/self/maps that name a file), saved in the raw file so that the merge
// can turn return addresses into module + offset and then function:line.
#ifndef RP_COLLECTOR_PROC_MAPS_H_
#define RP_COLLECTOR_PROC_MAPS_H_

#include <string>

namespace rp::collector {

std::string ExecutableMappings();
// /proc/self/cmdline: the arguments, each followed by a NUL.
std::string CommandLine();

}  // namespace rp::collector

#endif  // RP_COLLECTOR_PROC_MAPS_H_
