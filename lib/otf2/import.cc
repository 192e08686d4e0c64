#include "lib/otf2/import.h"

#include <otf2/otf2.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "lib/base/version.h"
#include "lib/mpi/functions.h"
#include "lib/otf2/definitions.h"
#include "lib/otf2/library.h"
#include "lib/trace/schema.h"

namespace rp::otf2 {
namespace {

// ----------------------------------------------------------------- events ---

// An MPI call or a stretch of computation, held until nothing can come
// before it (Importer::Emit).
struct Item {
  bool is_sample = false;
  bool open = false;  // an mpi record still inside its call
  int waiting = 0;    // posted operations whose completion fills it in
  mpi::Category category = mpi::Category::kInit;  // of an mpi record's function
  trace::MpiRecord mpi;
  trace::SampleRecord sample;
};
// Output order: time, then rank, then the stretch before the call that
// ends it, then call number.
using Key = std::tuple<int64_t, int32_t, int, int64_t>;

enum class RegionKind : uint8_t { kUser, kMpiCall, kMpiLocal };
struct RegionInfo {
  RegionKind kind = RegionKind::kUser;
  int32_t fn = -1;  // lib/mpi FunctionId of a kMpiCall
};

struct CommInfo {
  int64_t id = -1;
  bool self = false;             // MPI_COMM_SELF: one per rank
  std::vector<int32_t> world;    // world rank of each member
};

struct Lane {
  int32_t rank = 0;
  std::vector<OTF2_RegionRef> stack;  // every open region
  std::vector<int64_t> user;          // site ids of the open user regions, outermost first
  int mpi_depth = 0;                  // open MPI regions
  Item* call = nullptr;               // the rp call open
  int64_t last = 0;                   // end of the last stretch accounted for
  bool started = false;
  bool measuring = false;  // between MPI_Init's return and MPI_Finalize, as rp-record samples
  int64_t seq = 0;
  std::unordered_map<uint64_t, Item*> posted;  // by OTF2 request id
};

class Importer {
 public:
  Importer(const std::string& archive, Defs& defs, trace::Writer& out) : archive_(archive), defs_(defs), out_(out) {}

  Status Prepare(std::vector<OTF2_LocationRef>* ranks);
  // After the first pass over the events, which only finds the call sites:
  // gives them ids and starts the second pass, which writes the records.
  void EndScan();
  ImportCounts& counts() { return counts_; }
  const Status& status() const { return status_; }
  Status Finish();

  // Event callbacks.
  void Enter(OTF2_LocationRef loc, OTF2_TimeStamp time, OTF2_AttributeList* attributes, OTF2_RegionRef region);
  void Leave(OTF2_LocationRef loc, OTF2_TimeStamp time, OTF2_RegionRef region);
  void ProgramBegin(OTF2_StringRef name, uint32_t n, const OTF2_StringRef* args);
  void Send(OTF2_LocationRef loc, OTF2_TimeStamp time, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
            uint64_t bytes, const uint64_t* request);
  void Receive(OTF2_LocationRef loc, OTF2_TimeStamp time, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
               uint64_t bytes, const uint64_t* request);
  void Posted(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t request);
  void Completed(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t request);
  void Cancelled(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t request);
  void Collective(OTF2_LocationRef loc, OTF2_TimeStamp time, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                  uint64_t received, const uint64_t* request);
  void CommCreated(OTF2_LocationRef loc, OTF2_TimeStamp time, OTF2_CommRef comm);
  void Skipped(const char* kind) {
    if (!scanning_) ++counts_.skipped[kind];
  }

 private:
  int64_t Ns(OTF2_TimeStamp t) const {
    const __int128 ticks = static_cast<__int128>(t) - static_cast<__int128>(defs_.offset);
    return static_cast<int64_t>(ticks * 1000000000 / static_cast<__int128>(defs_.resolution));
  }
  Lane* LaneAt(OTF2_LocationRef loc, OTF2_TimeStamp time);
  Lane* LaneOf(OTF2_LocationRef loc, OTF2_TimeStamp time);
  Item* CallOf(Lane* lane, const char* event);
  int64_t WorldRank(const Lane& lane, OTF2_CommRef comm, uint32_t rank);
  int64_t CommId(const Lane& lane, OTF2_CommRef comm);
  void EndStretch(Lane* lane, int64_t now);
  static bool Starts(const Item& call);
  Item* Complete(Lane* lane, Item* call, uint64_t request);
  void InitFromAttributes(const Lane& lane, OTF2_AttributeList* attributes, trace::MpiRecord* m);
  static void StartRequest(Item* call, uint64_t request);
  void Emit(int64_t before);
  Status WriteDictionaries();

  std::string archive_;
  Defs& defs_;
  trace::Writer& out_;
  ImportCounts counts_;
  Status status_;
  std::unordered_map<OTF2_RegionRef, RegionInfo> regions_;
  std::unordered_map<OTF2_CommRef, CommInfo> comms_;
  int64_t self_base_ = -1;  // MPI_COMM_SELF of rank r is self_base_ + r
  OTF2_AttributeRef site_attribute_ = OTF2_UNDEFINED_ATTRIBUTE;
  OTF2_AttributeRef init_attributes_[kInitAttributeCount];
  OTF2_AttributeRef msg_attribute_ = OTF2_UNDEFINED_ATTRIBUTE;
  std::unordered_map<OTF2_LocationRef, Lane> lanes_;
  // OTF2 names the function around an MPI call, not the call's line: an
  // MPI call's site is (that function's region, the MPI function), so that
  // the sends and receives of one function are told apart. Ids follow the
  // regions' (the sites of the samples' frames).
  bool scanning_ = true;
  std::map<std::pair<OTF2_RegionRef, int32_t>, int64_t> call_sites_;
  std::map<Key, Item> pending_;
  bool dictionaries_written_ = false;
  std::string app_;
  std::vector<std::string> argv_;
};

Status Importer::Prepare(std::vector<OTF2_LocationRef>* ranks) {
  if (!defs_.have_clock || defs_.resolution == 0) {
    return InputError(archive_ + ": no clock properties in the global definitions (timer resolution unknown)");
  }
  // The MPI ranks: the locations of the MPI COMM_LOCATIONS group, by rank.
  const GroupDef* world = nullptr;
  for (const auto& [ref, group] : defs_.groups) {
    if (group.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && group.paradigm == OTF2_PARADIGM_MPI) {
      world = &group;
      break;
    }
  }
  if (world == nullptr || world->members.empty()) {
    return InputError(archive_ + ": no MPI ranks (no COMM_LOCATIONS group of paradigm MPI in the definitions): "
                      "rp reads traces of MPI programs");
  }
  for (size_t r = 0; r < world->members.size(); ++r) {
    const OTF2_LocationRef loc = world->members[r];
    if (!defs_.locations.count(loc)) {
      return InputError(archive_ + ": MPI rank " + std::to_string(r) + " is location " + std::to_string(loc) +
                        ", which has no definition");
    }
    Lane& lane = lanes_[loc];
    lane.rank = static_cast<int32_t>(r);
    ranks->push_back(loc);
  }
  counts_.ranks = static_cast<int64_t>(ranks->size());
  for (const auto& [ref, loc] : defs_.locations) {
    if (lanes_.count(ref)) continue;
    ++counts_.skipped_locations;
    counts_.skipped_location_events += static_cast<int64_t>(loc.events);
  }
  for (const auto& [ref, region] : defs_.regions) {
    RegionInfo info;
    if (region.paradigm == OTF2_PARADIGM_MPI) {
      info.fn = mpi::FindFunction(defs_.String(region.name));
      info.kind = info.fn >= 0 ? RegionKind::kMpiCall : RegionKind::kMpiLocal;
    }
    regions_[ref] = info;
  }
  // Communicators of MPI: the world first (id 0), the others in definition
  // order, then MPI_COMM_SELF once per rank.
  std::vector<OTF2_CommRef> order;
  OTF2_CommRef self_ref = OTF2_UNDEFINED_COMM;
  for (const auto& [ref, comm] : defs_.comms) {
    auto group = defs_.groups.find(comm.group);
    if (group == defs_.groups.end() || group->second.paradigm != OTF2_PARADIGM_MPI) continue;
    CommInfo info;
    if (group->second.type == OTF2_GROUP_TYPE_COMM_SELF) {
      info.self = true;
      self_ref = ref;
    } else {
      for (uint64_t m : group->second.members) {
        if (m >= world->members.size()) {
          return InputError(archive_ + ": communicator " + std::to_string(ref) + " (" + defs_.String(comm.name) +
                            ") has member " + std::to_string(m) + ", beyond the " +
                            std::to_string(world->members.size()) + " MPI ranks");
        }
        info.world.push_back(static_cast<int32_t>(m));
      }
      const bool is_world = info.world.size() == world->members.size() && comm.parent == OTF2_UNDEFINED_COMM &&
                            std::is_sorted(info.world.begin(), info.world.end());
      if (is_world && std::none_of(comms_.begin(), comms_.end(), [](const auto& c) { return c.second.id == 0; })) {
        info.id = 0;
      } else {
        order.push_back(ref);
      }
    }
    comms_[ref] = std::move(info);
  }
  int64_t next = 1;
  for (OTF2_CommRef ref : order) comms_[ref].id = next++;
  if (self_ref != OTF2_UNDEFINED_COMM) self_base_ = next;
  std::fill(std::begin(init_attributes_), std::end(init_attributes_), OTF2_UNDEFINED_ATTRIBUTE);
  for (const auto& [ref, name] : defs_.attributes) {
    if (defs_.String(name) == kSiteAttribute) site_attribute_ = ref;
    if (defs_.String(name) == kMsgAttribute) msg_attribute_ = ref;
    for (int i = 0; i < kInitAttributeCount; ++i) {
      if (defs_.String(name) == kInitAttributes[i]) init_attributes_[i] = ref;
    }
  }
  if (defs_.inter_comms > 0) counts_.skipped["inter-communicator definitions"] += defs_.inter_comms;
  return OkStatus();
}

Status Importer::WriteDictionaries() {
  dictionaries_written_ = true;
  trace::HeaderRecord header;
  header.set_schema(std::string(trace::kSchemaVersion));
  std::vector<std::string> producer;
  if (!counts_.creator.empty()) producer.push_back(counts_.creator);
  producer.push_back(std::string("rp-cat ") + kVersion);
  header.set_producer(producer);
  if (!app_.empty()) header.set_app(app_);
  if (!argv_.empty()) header.set_argv(argv_);
  header.set_ranks(counts_.ranks);
  header.set_clock("global");
  header.set_order("time");
  RP_RETURN_IF_ERROR(out_.Write(header));
  std::vector<const Lane*> by_rank(counts_.ranks);
  std::vector<OTF2_LocationRef> loc_of(counts_.ranks);
  for (const auto& [loc, lane] : lanes_) by_rank[lane.rank] = &lane, loc_of[lane.rank] = loc;
  for (int32_t r = 0; r < counts_.ranks; ++r) {
    trace::RankRecord rank;
    rank.set_rank(r);
    auto group = defs_.location_groups.find(defs_.locations[loc_of[r]].group);
    if (group != defs_.location_groups.end()) {
      auto node = defs_.nodes.find(group->second);
      if (node != defs_.nodes.end() && !defs_.String(node->second).empty()) rank.set_host(defs_.String(node->second));
    }
    RP_RETURN_IF_ERROR(out_.Write(rank));
  }
  std::vector<std::pair<int64_t, OTF2_CommRef>> comms;
  for (const auto& [ref, info] : comms_) {
    if (!info.self) comms.emplace_back(info.id, ref);
  }
  std::sort(comms.begin(), comms.end());
  for (const auto& [id, ref] : comms) {
    const CommInfo& info = comms_[ref];
    trace::CommRecord comm;
    comm.set_id(id);
    comm.set_size(static_cast<int64_t>(info.world.size()));
    comm.set_ranks({info.world.begin(), info.world.end()});
    if (id == 0) comm.set_kind("world");
    auto parent = comms_.find(defs_.comms[ref].parent);
    if (parent != comms_.end() && !parent->second.self) comm.set_parent(parent->second.id);
    RP_RETURN_IF_ERROR(out_.Write(comm));
  }
  if (self_base_ >= 0) {
    for (int64_t r = 0; r < counts_.ranks; ++r) {
      trace::CommRecord comm;
      comm.set_id(self_base_ + r);
      comm.set_size(1);
      comm.set_ranks({r});
      comm.set_kind("self");
      RP_RETURN_IF_ERROR(out_.Write(comm));
    }
  }
  for (const auto& [ref, region] : defs_.regions) {
    if (regions_[ref].kind != RegionKind::kUser) continue;
    trace::SiteRecord site;
    site.set_id(ref);
    site.set_fn(defs_.String(region.name));
    if (region.file != OTF2_UNDEFINED_STRING && !defs_.String(region.file).empty()) {
      site.set_file(defs_.String(region.file));
    }
    if (region.line > 0) site.set_line(region.line);
    RP_RETURN_IF_ERROR(out_.Write(site));
  }
  std::vector<std::pair<int64_t, OTF2_RegionRef>> call_sites;
  for (const auto& [key, id] : call_sites_) call_sites.emplace_back(id, key.first);
  for (const auto& [id, caller] : call_sites) {
    trace::SiteRecord site;
    site.set_id(id);
    auto region = defs_.regions.find(caller);
    if (region != defs_.regions.end()) {
      site.set_fn(defs_.String(region->second.name));
      if (region->second.file != OTF2_UNDEFINED_STRING && !defs_.String(region->second.file).empty()) {
        site.set_file(defs_.String(region->second.file));
      }
      if (region->second.line > 0) site.set_line(region->second.line);
    }
    RP_RETURN_IF_ERROR(out_.Write(site));
  }
  return OkStatus();
}

void Importer::Emit(int64_t before) {
  while (!pending_.empty() && status_.ok()) {
    auto it = pending_.begin();
    const Item& item = it->second;
    if (std::get<0>(it->first) >= before || item.open || item.waiting > 0) return;
    if (!dictionaries_written_) status_ = WriteDictionaries();
    if (!status_.ok()) return;
    if (item.is_sample) {
      status_ = out_.Write(item.sample);
      ++counts_.samples;
    } else {
      status_ = out_.Write(item.mpi);
      ++counts_.mpi;
    }
    pending_.erase(it);
  }
}

Status Importer::Finish() {
  RP_RETURN_IF_ERROR(status_);
  int64_t unfinished = 0, unmatched = 0;
  for (auto& [key, item] : pending_) {
    unfinished += item.open;
    unmatched += item.waiting > 0;
    item.open = false;
    item.waiting = 0;
  }
  if (unfinished > 0) counts_.skipped["calls without their Leave (kept, ending at their entry)"] += unfinished;
  if (unmatched > 0) counts_.skipped["posted operations never completed (kept as posted)"] += unmatched;
  Emit(INT64_MAX);
  RP_RETURN_IF_ERROR(status_);
  if (!dictionaries_written_) RP_RETURN_IF_ERROR(WriteDictionaries());
  if (counts_.mpi == 0) {
    return InputError(archive_ + ": no MPI calls in the events of its " + std::to_string(counts_.ranks) +
                      " MPI rank(s)");
  }
  return OkStatus();
}

Lane* Importer::LaneAt(OTF2_LocationRef loc, OTF2_TimeStamp time) {
  return scanning_ ? nullptr : LaneOf(loc, time);
}

Lane* Importer::LaneOf(OTF2_LocationRef loc, OTF2_TimeStamp time) {
  auto it = lanes_.find(loc);
  if (it == lanes_.end()) return nullptr;
  if (!scanning_) Emit(Ns(time));
  return &it->second;
}

Item* Importer::CallOf(Lane* lane, const char* event) {
  if (lane != nullptr && lane->call != nullptr) return lane->call;
  Skipped(event);
  return nullptr;
}

int64_t Importer::WorldRank(const Lane& lane, OTF2_CommRef comm, uint32_t rank) {
  auto it = comms_.find(comm);
  if (it == comms_.end()) {
    Skipped("peers on unknown communicators (kept as -1)");
    return -1;
  }
  if (it->second.self) return lane.rank;
  if (rank >= it->second.world.size()) {
    Skipped("peers outside their communicator (kept as -1)");
    return -1;
  }
  return it->second.world[rank];
}

int64_t Importer::CommId(const Lane& lane, OTF2_CommRef comm) {
  auto it = comms_.find(comm);
  if (it == comms_.end()) return -1;
  return it->second.self ? self_base_ + lane.rank : it->second.id;
}

// The computation since the lane's last event, as one sample of the user
// regions open over it (lib/profile: a sample stands for the time just
// before it).
void Importer::EndStretch(Lane* lane, int64_t now) {
  if (lane->mpi_depth == 0 && lane->measuring && lane->started && !lane->user.empty() && now > lane->last) {
    Item item;
    item.is_sample = true;
    item.sample.set_rank(lane->rank);
    item.sample.set_t(now);
    item.sample.set_stack({lane->user.rbegin(), lane->user.rend()});
    item.sample.set_weight(now - lane->last);
    pending_.emplace(Key{now, lane->rank, 0, lane->seq}, std::move(item));
  }
  lane->last = now;
  lane->started = true;
}

void Importer::EndScan() {
  int64_t next = defs_.regions.empty() ? 0 : static_cast<int64_t>(defs_.regions.rbegin()->first) + 1;
  for (auto& [key, id] : call_sites_) id = next++;
  for (auto& [loc, lane] : lanes_) lane = Lane{.rank = lane.rank};
  counts_.local_calls = 0;
  scanning_ = false;
}

void Importer::Enter(OTF2_LocationRef loc, OTF2_TimeStamp time, OTF2_AttributeList* attributes,
                     OTF2_RegionRef region) {
  Lane* lane = LaneOf(loc, time);
  if (lane == nullptr) return;
  const int64_t now = Ns(time);
  const RegionInfo info = regions_[region];
  lane->stack.push_back(region);
  if (lane->mpi_depth > 0) {  // inside a call: part of it
    lane->mpi_depth += info.kind != RegionKind::kUser;
    return;
  }
  switch (info.kind) {
    case RegionKind::kMpiLocal:  // computation, as rp-record sees it
      ++counts_.local_calls;
      return;
    case RegionKind::kUser:
      if (!scanning_) EndStretch(lane, now);
      lane->user.push_back(region);
      return;
    case RegionKind::kMpiCall:
      break;
  }
  if (!scanning_) EndStretch(lane, now);
  lane->mpi_depth = 1;
  OTF2_RegionRef site = OTF2_UNDEFINED_REGION;
  OTF2_Type type;
  OTF2_AttributeValue value;
  if (attributes != nullptr && site_attribute_ != OTF2_UNDEFINED_ATTRIBUTE &&
      OTF2_AttributeList_GetAttributeByID(attributes, site_attribute_, &type, &value) == OTF2_SUCCESS &&
      type == OTF2_TYPE_REGION) {
    site = value.regionRef;
  }
  const std::pair<OTF2_RegionRef, int32_t> call_site{lane->user.empty() ? OTF2_UNDEFINED_REGION : lane->user.back(),
                                                     info.fn};
  if (scanning_) {
    if (site == OTF2_UNDEFINED_REGION) call_sites_.emplace(call_site, 0);
    return;
  }
  if (mpi::kFunctions[info.fn].category == mpi::Category::kFinalize) lane->measuring = false;
  Item item;
  item.open = true;
  item.category = mpi::kFunctions[info.fn].category;
  trace::MpiRecord& m = item.mpi;
  m.set_rank(lane->rank);
  m.set_seq(lane->seq);
  m.set_fn(mpi::kFunctions[info.fn].name);
  m.set_t0(now);
  m.set_site(site != OTF2_UNDEFINED_REGION ? site : call_sites_.at(call_site));
  if (attributes != nullptr) InitFromAttributes(*lane, attributes, &m);
  lane->call = &pending_.emplace(Key{now, lane->rank, 1, lane->seq}, std::move(item)).first->second;
  ++lane->seq;
}

void Importer::Leave(OTF2_LocationRef loc, OTF2_TimeStamp time, OTF2_RegionRef region) {
  Lane* lane = LaneOf(loc, time);
  if (lane == nullptr) return;
  const int64_t now = Ns(time);
  if (lane->stack.empty() || lane->stack.back() != region) {
    Skipped("Leave events not matching the last Enter");
    return;
  }
  lane->stack.pop_back();
  const RegionInfo info = regions_[region];
  if (lane->mpi_depth > 0) {
    if (info.kind == RegionKind::kUser || --lane->mpi_depth > 0 || scanning_) return;
    lane->call->mpi.set_t1(now);
    if (lane->call->category == mpi::Category::kInit) {
      lane->measuring = true;
    }
    lane->call->open = false;
    lane->call = nullptr;
    lane->last = now;
    return;
  }
  if (info.kind == RegionKind::kUser) {
    if (!scanning_) EndStretch(lane, now);
    lane->user.pop_back();
  }
}

void Importer::ProgramBegin(OTF2_StringRef name, uint32_t n, const OTF2_StringRef* args) {
  if (!app_.empty()) return;
  app_ = defs_.String(name);
  argv_.assign(1, app_);
  for (uint32_t i = 0; i < n; ++i) argv_.push_back(defs_.String(args[i]));
}

void Importer::Send(OTF2_LocationRef loc, OTF2_TimeStamp time, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                    uint64_t bytes, const uint64_t* request) {
  Lane* lane = LaneAt(loc, time);
  Item* call = CallOf(lane, "message events outside an MPI call");
  if (call == nullptr) return;
  trace::MpiRecord& m = call->mpi;
  if (request != nullptr && Starts(*call)) {  // a persistent send started: its MPI_Send_init said where to
    StartRequest(call, *request);
    return;
  }
  m.set_comm(CommId(*lane, comm));
  m.set_peer(WorldRank(*lane, comm, peer));
  m.set_tag(tag);
  m.set_bytes(static_cast<int64_t>(bytes));
  if (request != nullptr) m.set_req(static_cast<int64_t>(*request));
}

void Importer::Receive(OTF2_LocationRef loc, OTF2_TimeStamp time, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                       uint64_t bytes, const uint64_t* request) {
  Lane* lane = LaneAt(loc, time);
  Item* call = CallOf(lane, "message events outside an MPI call");
  if (call == nullptr) return;
  Item* posted = call;
  if (request != nullptr) {  // MpiIrecv: completes a receive posted earlier
    posted = Complete(lane, call, *request);
    if (posted == nullptr) return;  // persistent (the record that made it has its source)
  }
  trace::MpiRecord& m = posted->mpi;
  const int64_t world = WorldRank(*lane, comm, peer);
  if (request == nullptr && posted->category == mpi::Category::kSendrecv) {
    if (!m.has_comm()) m.set_comm(CommId(*lane, comm));
    m.set_rpeer(world);
    m.set_rtag(tag);
    m.set_rbytes(static_cast<int64_t>(bytes));
    return;
  }
  m.set_comm(CommId(*lane, comm));
  m.set_peer(world);
  m.set_tag(tag);
  m.set_bytes(static_cast<int64_t>(bytes));
}

void Importer::Posted(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t request) {
  Lane* lane = LaneAt(loc, time);
  Item* call = CallOf(lane, "request events outside an MPI call");
  if (call == nullptr) return;
  if (Starts(*call)) {  // a persistent receive started
    StartRequest(call, request);
    return;
  }
  call->mpi.set_req(static_cast<int64_t>(request));
  auto [it, inserted] = lane->posted.emplace(request, call);
  if (!inserted) {
    Skipped("requests posted twice (the first kept as posted)");
    --it->second->waiting;
    it->second = call;
  }
  ++call->waiting;
}

void Importer::Completed(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t request) {
  Lane* lane = LaneAt(loc, time);
  Item* call = CallOf(lane, "request events outside an MPI call");
  if (call == nullptr) return;
  call->mpi.completed.push_back(static_cast<int64_t>(request));
  call->mpi.set_completed(call->mpi.completed);
}

void Importer::Cancelled(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t request) {
  Lane* lane = LaneAt(loc, time);
  if (lane == nullptr) return;
  auto it = lane->posted.find(request);
  if (it != lane->posted.end()) {
    --it->second->waiting;
    lane->posted.erase(it);
  }
  Skipped("cancelled requests");
}

void Importer::Collective(OTF2_LocationRef loc, OTF2_TimeStamp time, OTF2_CommRef comm, uint32_t root,
                          uint64_t sent, uint64_t received, const uint64_t* request) {
  Lane* lane = LaneAt(loc, time);
  Item* call = CallOf(lane, "collective events outside an MPI call");
  if (call == nullptr) return;
  Item* target = call;
  if (request != nullptr) {  // NonBlockingCollectiveComplete
    target = Complete(lane, call, *request);
    if (target == nullptr) {
      Skipped("collective completions without their posting call");
      return;
    }
  }
  trace::MpiRecord& m = target->mpi;
  m.set_comm(CommId(*lane, comm));
  if (root != OTF2_UNDEFINED_UINT32) m.set_root(WorldRank(*lane, comm, root));
  m.set_bytes(static_cast<int64_t>(sent));
  m.set_rbytes(static_cast<int64_t>(received));
}

void Importer::CommCreated(OTF2_LocationRef loc, OTF2_TimeStamp time, OTF2_CommRef comm) {
  Lane* lane = LaneAt(loc, time);
  Item* call = CallOf(lane, "communicator events outside an MPI call");
  if (call != nullptr && CommId(*lane, comm) >= 0) call->mpi.set_newcomm(CommId(*lane, comm));
}

// What an MPI_Send_init / MPI_Recv_init made, from the attributes rp-cat
// --to otf2 wrote (library.h).
void Importer::InitFromAttributes(const Lane& lane, OTF2_AttributeList* attributes, trace::MpiRecord* m) {
  int64_t msg = 0;
  if (msg_attribute_ != OTF2_UNDEFINED_ATTRIBUTE &&
      OTF2_AttributeList_GetInt64(attributes, msg_attribute_, &msg) == OTF2_SUCCESS) {
    m->set_msg(msg);
  }
  int64_t values[kInitAttributeCount];
  OTF2_CommRef comm = OTF2_UNDEFINED_COMM;
  for (int i = 0; i < kInitAttributeCount; ++i) {
    OTF2_Type type;
    OTF2_AttributeValue value;
    if (init_attributes_[i] == OTF2_UNDEFINED_ATTRIBUTE ||
        OTF2_AttributeList_GetAttributeByID(attributes, init_attributes_[i], &type, &value) != OTF2_SUCCESS) {
      return;
    }
    if (type == OTF2_TYPE_COMM) {
      comm = value.commRef;
    } else if (type == OTF2_TYPE_INT64) {
      values[i] = value.int64;
    } else {
      return;
    }
  }
  m->set_comm(CommId(lane, comm));
  m->set_peer(values[0]);
  m->set_tag(values[1]);
  if (values[2] >= 0) m->set_bytes(values[2]);
  if (values[4] >= 0) m->set_req(values[4]);
}

// `call` completes `request`: listed in its completed; the operation that
// posted it, no longer waiting for this, or null when none is known.
Item* Importer::Complete(Lane* lane, Item* call, uint64_t request) {
  call->mpi.completed.push_back(static_cast<int64_t>(request));
  call->mpi.set_completed(call->mpi.completed);
  auto it = lane->posted.find(request);
  if (it == lane->posted.end()) return nullptr;
  Item* posted = it->second;
  lane->posted.erase(it);
  --posted->waiting;
  return posted;
}

bool Importer::Starts(const Item& call) {
  return call.category == mpi::Category::kStart || call.category == mpi::Category::kStartall;
}

void Importer::StartRequest(Item* call, uint64_t request) {
  if (call->category == mpi::Category::kStart) {
    call->mpi.set_req(static_cast<int64_t>(request));
  } else {
    call->mpi.reqs.push_back(static_cast<int64_t>(request));
    call->mpi.set_reqs(call->mpi.reqs);
  }
}

// ----------------------------------------------------- callback plumbing ---

#define RP_EVT(Name, ...)                                                                             \
  OTF2_CallbackCode Evt##Name(OTF2_LocationRef loc, OTF2_TimeStamp time, void* user,                  \
                              [[maybe_unused]] OTF2_AttributeList* attributes, __VA_ARGS__)
#define RP_DONE(importer) return (importer).status().ok() ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT
#define RP_IMPORTER auto& importer = *static_cast<Importer*>(user)

RP_EVT(Enter, OTF2_RegionRef region) {
  RP_IMPORTER;
  importer.Enter(loc, time, attributes, region);
  RP_DONE(importer);
}
RP_EVT(Leave, OTF2_RegionRef region) {
  RP_IMPORTER;
  importer.Leave(loc, time, region);
  RP_DONE(importer);
}
RP_EVT(ProgramBegin, OTF2_StringRef name, uint32_t n, const OTF2_StringRef* args) {
  RP_IMPORTER;
  importer.ProgramBegin(name, n, args);
  (void)loc, (void)time;
  RP_DONE(importer);
}
RP_EVT(MpiSend, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  RP_IMPORTER;
  importer.Send(loc, time, peer, comm, tag, bytes, nullptr);
  RP_DONE(importer);
}
RP_EVT(MpiIsend, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  RP_IMPORTER;
  importer.Send(loc, time, peer, comm, tag, bytes, &request);
  RP_DONE(importer);
}
RP_EVT(MpiRecv, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  RP_IMPORTER;
  importer.Receive(loc, time, peer, comm, tag, bytes, nullptr);
  RP_DONE(importer);
}
RP_EVT(MpiIrecv, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  RP_IMPORTER;
  importer.Receive(loc, time, peer, comm, tag, bytes, &request);
  RP_DONE(importer);
}
RP_EVT(MpiIrecvRequest, uint64_t request) {
  RP_IMPORTER;
  importer.Posted(loc, time, request);
  RP_DONE(importer);
}
RP_EVT(NonBlockingCollectiveRequest, uint64_t request) {
  RP_IMPORTER;
  importer.Posted(loc, time, request);
  RP_DONE(importer);
}
RP_EVT(MpiIsendComplete, uint64_t request) {
  RP_IMPORTER;
  importer.Completed(loc, time, request);
  RP_DONE(importer);
}
RP_EVT(MpiRequestCancelled, uint64_t request) {
  RP_IMPORTER;
  importer.Cancelled(loc, time, request);
  RP_DONE(importer);
}
RP_EVT(MpiCollectiveEnd, OTF2_CollectiveOp, OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received) {
  RP_IMPORTER;
  importer.Collective(loc, time, comm, root, sent, received, nullptr);
  RP_DONE(importer);
}
RP_EVT(NonBlockingCollectiveComplete, OTF2_CollectiveOp, OTF2_CommRef comm, uint32_t root, uint64_t sent,
       uint64_t received, uint64_t request) {
  RP_IMPORTER;
  importer.Collective(loc, time, comm, root, sent, received, &request);
  RP_DONE(importer);
}
RP_EVT(CommCreate, OTF2_CommRef comm) {
  RP_IMPORTER;
  importer.CommCreated(loc, time, comm);
  RP_DONE(importer);
}
#undef RP_EVT
#undef RP_DONE
#undef RP_IMPORTER

// Events rp has no record for: counted by kind.
constexpr const char* kSkipKinds[] = {"metric events",    "one-sided (RMA) events", "thread and OpenMP events",
                                      "I/O events",       "parameter events",       "calling-context events",
                                      "other events"};
template <typename Callback>
struct Skip;
template <typename... Rest>
struct Skip<OTF2_CallbackCode (*)(OTF2_LocationRef, OTF2_TimeStamp, void*, OTF2_AttributeList*, Rest...)> {
  template <int kKind>
  static OTF2_CallbackCode Count(OTF2_LocationRef, OTF2_TimeStamp, void* user, OTF2_AttributeList*, Rest...) {
    static_cast<Importer*>(user)->Skipped(kSkipKinds[kKind]);
    return OTF2_CALLBACK_SUCCESS;
  }
};

void SetCallbacks(OTF2_GlobalEvtReaderCallbacks* cb) {
#define RP_SET(Name) OTF2_GlobalEvtReaderCallbacks_Set##Name##Callback(cb, &Evt##Name)
  RP_SET(Enter);
  RP_SET(Leave);
  RP_SET(ProgramBegin);
  RP_SET(MpiSend);
  RP_SET(MpiIsend);
  RP_SET(MpiRecv);
  RP_SET(MpiIrecv);
  RP_SET(MpiIrecvRequest);
  RP_SET(NonBlockingCollectiveRequest);
  RP_SET(MpiIsendComplete);
  RP_SET(MpiRequestCancelled);
  RP_SET(MpiCollectiveEnd);
  RP_SET(NonBlockingCollectiveComplete);
  RP_SET(CommCreate);
#undef RP_SET
#define RP_SKIP(Name, kind) \
  OTF2_GlobalEvtReaderCallbacks_Set##Name##Callback(cb, &Skip<OTF2_GlobalEvtReaderCallback_##Name>::Count<kind>)
  RP_SKIP(Metric, 0);
  RP_SKIP(RmaWinCreate, 1);
  RP_SKIP(RmaWinDestroy, 1);
  RP_SKIP(RmaCollectiveBegin, 1);
  RP_SKIP(RmaCollectiveEnd, 1);
  RP_SKIP(RmaGroupSync, 1);
  RP_SKIP(RmaRequestLock, 1);
  RP_SKIP(RmaAcquireLock, 1);
  RP_SKIP(RmaTryLock, 1);
  RP_SKIP(RmaReleaseLock, 1);
  RP_SKIP(RmaSync, 1);
  RP_SKIP(RmaWaitChange, 1);
  RP_SKIP(RmaPut, 1);
  RP_SKIP(RmaGet, 1);
  RP_SKIP(RmaAtomic, 1);
  RP_SKIP(RmaOpCompleteBlocking, 1);
  RP_SKIP(RmaOpCompleteNonBlocking, 1);
  RP_SKIP(RmaOpTest, 1);
  RP_SKIP(RmaOpCompleteRemote, 1);
  RP_SKIP(OmpFork, 2);
  RP_SKIP(OmpJoin, 2);
  RP_SKIP(OmpAcquireLock, 2);
  RP_SKIP(OmpReleaseLock, 2);
  RP_SKIP(OmpTaskCreate, 2);
  RP_SKIP(OmpTaskSwitch, 2);
  RP_SKIP(OmpTaskComplete, 2);
  RP_SKIP(ThreadFork, 2);
  RP_SKIP(ThreadJoin, 2);
  RP_SKIP(ThreadTeamBegin, 2);
  RP_SKIP(ThreadTeamEnd, 2);
  RP_SKIP(ThreadAcquireLock, 2);
  RP_SKIP(ThreadReleaseLock, 2);
  RP_SKIP(ThreadTaskCreate, 2);
  RP_SKIP(ThreadTaskSwitch, 2);
  RP_SKIP(ThreadTaskComplete, 2);
  RP_SKIP(ThreadCreate, 2);
  RP_SKIP(ThreadBegin, 2);
  RP_SKIP(ThreadWait, 2);
  RP_SKIP(ThreadEnd, 2);
  RP_SKIP(IoCreateHandle, 3);
  RP_SKIP(IoDestroyHandle, 3);
  RP_SKIP(IoDuplicateHandle, 3);
  RP_SKIP(IoSeek, 3);
  RP_SKIP(IoChangeStatusFlags, 3);
  RP_SKIP(IoDeleteFile, 3);
  RP_SKIP(IoOperationBegin, 3);
  RP_SKIP(IoOperationTest, 3);
  RP_SKIP(IoOperationIssued, 3);
  RP_SKIP(IoOperationComplete, 3);
  RP_SKIP(IoOperationCancelled, 3);
  RP_SKIP(IoAcquireLock, 3);
  RP_SKIP(IoReleaseLock, 3);
  RP_SKIP(IoTryLock, 3);
  RP_SKIP(ParameterString, 4);
  RP_SKIP(ParameterInt, 4);
  RP_SKIP(ParameterUnsignedInt, 4);
  RP_SKIP(CallingContextEnter, 5);
  RP_SKIP(CallingContextLeave, 5);
  RP_SKIP(CallingContextSample, 5);
  RP_SKIP(Unknown, 6);
#undef RP_SKIP
}

std::string AnchorOf(const std::string& archive) {
  struct stat st;
  if (::stat(archive.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return archive + "/traces.otf2";
  return archive;
}

// Reads the events of `ranks` once, into `importer`.
Status ReadEvents(const std::string& anchor, const std::vector<OTF2_LocationRef>& ranks, Importer& importer,
                  ErrorCapture& errors) {
  Library::Reader reader(OTF2_Reader_Open(anchor.c_str()));
  auto fail = [&](const std::string& what) { return InputError(anchor + ": " + what + errors.Tail()); };
  if (reader == nullptr || OTF2_Reader_SetSerialCollectiveCallbacks(reader.get()) != OTF2_SUCCESS) {
    return fail("cannot read");
  }
  for (OTF2_LocationRef loc : ranks) OTF2_Reader_SelectLocation(reader.get(), loc);
  // Local definitions map each location's ids to the global ones and carry
  // its clock corrections; an archive may lack them.
  const bool have_local = OTF2_Reader_OpenDefFiles(reader.get()) == OTF2_SUCCESS;
  for (OTF2_LocationRef loc : ranks) {
    if (!have_local) break;
    if (OTF2_DefReader* local = OTF2_Reader_GetDefReader(reader.get(), loc)) {
      uint64_t n = 0;
      if (OTF2_Reader_ReadAllLocalDefinitions(reader.get(), local, &n) != OTF2_SUCCESS) {
        return fail("the local definitions of location " + std::to_string(loc) + " (traces/" + std::to_string(loc) +
                    ".def) are damaged");
      }
      OTF2_Reader_CloseDefReader(reader.get(), local);
    }
  }
  if (have_local) OTF2_Reader_CloseDefFiles(reader.get());
  errors.Clear();
  if (OTF2_Reader_OpenEvtFiles(reader.get()) != OTF2_SUCCESS) return fail("cannot open the event files");
  for (OTF2_LocationRef loc : ranks) {
    if (OTF2_Reader_GetEvtReader(reader.get(), loc) == nullptr) {
      return fail("cannot open the events of location " + std::to_string(loc) + " (traces/" + std::to_string(loc) +
                  ".evt)");
    }
  }
  OTF2_GlobalEvtReader* events = OTF2_Reader_GetGlobalEvtReader(reader.get());
  if (events == nullptr) return fail("cannot read the events");
  OTF2_GlobalEvtReaderCallbacks* cb = OTF2_GlobalEvtReaderCallbacks_New();
  SetCallbacks(cb);
  OTF2_ErrorCode code = OTF2_Reader_RegisterGlobalEvtCallbacks(reader.get(), events, cb, &importer);
  OTF2_GlobalEvtReaderCallbacks_Delete(cb);
  if (code != OTF2_SUCCESS) return fail("cannot read the events");
  uint64_t read = 0;
  code = OTF2_Reader_ReadAllGlobalEvents(reader.get(), events, &read);
  RP_RETURN_IF_ERROR(importer.status());
  if (code != OTF2_SUCCESS) return fail("the events are damaged or missing");
  OTF2_Reader_CloseGlobalEvtReader(reader.get(), events);
  OTF2_Reader_CloseEvtFiles(reader.get());
  return OkStatus();
}

}  // namespace

Expected<ImportCounts> Import(const std::string& archive, trace::Writer& out) {
  const std::string anchor = AnchorOf(archive);
  if (::access(anchor.c_str(), R_OK) != 0) {
    return InputError(anchor + ": cannot read the OTF2 anchor file: " + std::strerror(errno));
  }
  ErrorCapture errors;
  Defs defs;
  std::string creator;
  RP_RETURN_IF_ERROR(ReadDefinitions(anchor, &defs, &creator, errors));
  Importer importer(anchor, defs, out);
  importer.counts().creator = creator;
  std::vector<OTF2_LocationRef> ranks;
  RP_RETURN_IF_ERROR(importer.Prepare(&ranks));
  RP_RETURN_IF_ERROR(ReadEvents(anchor, ranks, importer, errors));  // the call sites
  importer.EndScan();
  RP_RETURN_IF_ERROR(ReadEvents(anchor, ranks, importer, errors));  // the records
  RP_RETURN_IF_ERROR(importer.Finish());
  return importer.counts();
}

}  // namespace rp::otf2
