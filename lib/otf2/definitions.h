// The global definitions of an OTF2 archive that the importer needs,
// read once with the library's definition reader.
#ifndef RP_LIB_OTF2_DEFINITIONS_H_
#define RP_LIB_OTF2_DEFINITIONS_H_

#include <otf2/otf2.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/otf2/library.h"

namespace rp::otf2 {

struct RegionDef {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING, file = OTF2_UNDEFINED_STRING;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  uint32_t line = 0;
};
struct GroupDef {
  OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  std::vector<uint64_t> members;
};
struct CommDef {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_GroupRef group = OTF2_UNDEFINED_GROUP;
  OTF2_CommRef parent = OTF2_UNDEFINED_COMM;
};
struct LocationDef {
  OTF2_LocationType type = OTF2_LOCATION_TYPE_UNKNOWN;
  uint64_t events = 0;
  OTF2_LocationGroupRef group = OTF2_UNDEFINED_LOCATION_GROUP;
};

struct Defs {
  bool have_clock = false;
  uint64_t resolution = 0, offset = 0;
  std::unordered_map<OTF2_StringRef, std::string> strings;
  std::map<OTF2_RegionRef, RegionDef> regions;
  std::map<OTF2_GroupRef, GroupDef> groups;
  std::map<OTF2_CommRef, CommDef> comms;
  std::map<OTF2_LocationRef, LocationDef> locations;
  std::unordered_map<OTF2_LocationGroupRef, OTF2_SystemTreeNodeRef> location_groups;
  std::unordered_map<OTF2_SystemTreeNodeRef, OTF2_StringRef> nodes;
  std::unordered_map<OTF2_AttributeRef, OTF2_StringRef> attributes;
  int64_t inter_comms = 0;

  const std::string& String(OTF2_StringRef ref) const {
    static const std::string kNone;
    auto it = strings.find(ref);
    return it == strings.end() ? kNone : it->second;
  }
};

// Reads the global definitions of the archive whose anchor file is
// `anchor`, and its creator ("Score-P 7.1").
Status ReadDefinitions(const std::string& anchor, Defs* defs, std::string* creator, ErrorCapture& errors);

}  // namespace rp::otf2

#endif  // RP_LIB_OTF2_DEFINITIONS_H_
