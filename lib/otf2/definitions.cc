#include "lib/otf2/definitions.h"

#include <cstdlib>

namespace rp::otf2 {
namespace {

#define RP_DEF(Name, ...) OTF2_CallbackCode Def##Name(void* user, __VA_ARGS__)
#define RP_DEFS auto& defs = *static_cast<Defs*>(user)

RP_DEF(ClockProperties, uint64_t resolution, uint64_t offset, uint64_t, uint64_t) {
  RP_DEFS;
  defs.have_clock = true;
  defs.resolution = resolution;
  defs.offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(String, OTF2_StringRef self, const char* text) {
  RP_DEFS;
  defs.strings[self] = text == nullptr ? "" : text;
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(Region, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_StringRef, OTF2_RegionRole,
       OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef file, uint32_t begin, uint32_t) {
  RP_DEFS;
  defs.regions[self] = RegionDef{name, file, paradigm, begin};
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(Group, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag,
       uint32_t n, const uint64_t* members) {
  RP_DEFS;
  defs.groups[self] = GroupDef{type, paradigm, std::vector<uint64_t>(members, members + n)};
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(Comm, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag) {
  RP_DEFS;
  defs.comms[self] = CommDef{name, group, parent};
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(InterComm, OTF2_CommRef, OTF2_StringRef, OTF2_GroupRef, OTF2_GroupRef, OTF2_CommRef, OTF2_CommFlag) {
  RP_DEFS;
  ++defs.inter_comms;
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(Location, OTF2_LocationRef self, OTF2_StringRef, OTF2_LocationType type, uint64_t events,
       OTF2_LocationGroupRef group) {
  RP_DEFS;
  defs.locations[self] = LocationDef{type, events, group};
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(LocationGroup, OTF2_LocationGroupRef self, OTF2_StringRef, OTF2_LocationGroupType,
       OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef) {
  RP_DEFS;
  defs.location_groups[self] = parent;
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(SystemTreeNode, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_SystemTreeNodeRef) {
  RP_DEFS;
  defs.nodes[self] = name;
  return OTF2_CALLBACK_SUCCESS;
}
RP_DEF(Attribute, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_Type) {
  RP_DEFS;
  defs.attributes[self] = name;
  return OTF2_CALLBACK_SUCCESS;
}
#undef RP_DEF
#undef RP_DEFS

}  // namespace

Status ReadDefinitions(const std::string& anchor, Defs* defs, std::string* creator, ErrorCapture& errors) {
  Library::Reader reader(OTF2_Reader_Open(anchor.c_str()));
  if (reader == nullptr) return InputError(anchor + ": not an OTF2 archive" + errors.Tail());
  auto fail = [&](const std::string& what) { return InputError(anchor + ": " + what + errors.Tail()); };
  if (OTF2_Reader_SetSerialCollectiveCallbacks(reader.get()) != OTF2_SUCCESS) return fail("cannot read");
  char* name = nullptr;
  if (OTF2_Reader_GetCreator(reader.get(), &name) == OTF2_SUCCESS && name != nullptr) {
    *creator = name;
    std::free(name);
  }
  OTF2_GlobalDefReader* def_reader = OTF2_Reader_GetGlobalDefReader(reader.get());
  if (def_reader == nullptr) return fail("cannot open the global definitions (traces.def)");
  OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
#define RP_SET(Name) OTF2_GlobalDefReaderCallbacks_Set##Name##Callback(cb, &Def##Name)
  RP_SET(ClockProperties);
  RP_SET(String);
  RP_SET(Region);
  RP_SET(Group);
  RP_SET(Comm);
  RP_SET(InterComm);
  RP_SET(Location);
  RP_SET(LocationGroup);
  RP_SET(SystemTreeNode);
  RP_SET(Attribute);
#undef RP_SET
  const OTF2_ErrorCode code = OTF2_Reader_RegisterGlobalDefCallbacks(reader.get(), def_reader, cb, defs);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  if (code != OTF2_SUCCESS) return fail("cannot read the global definitions");
  uint64_t read = 0;
  if (OTF2_Reader_ReadAllGlobalDefinitions(reader.get(), def_reader, &read) != OTF2_SUCCESS) {
    return fail("the global definitions (traces.def) are damaged");
  }
  return OkStatus();
}

}  // namespace rp::otf2
