#include "lib/otf2/export.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/base/version.h"
#include "lib/mpi/functions.h"
#include "lib/otf2/library.h"
#include "lib/trace/record.h"

namespace rp::otf2 {
namespace {

using mpi::Category;


// OTF2's collective operation of an MPI collective (MPI_Ibcast: BCAST).
OTF2_CollectiveOp CollectiveOp(std::string_view fn) {
  static const std::unordered_map<std::string_view, OTF2_CollectiveOp> kOps = {
      {"Barrier", OTF2_COLLECTIVE_OP_BARRIER},
      {"Bcast", OTF2_COLLECTIVE_OP_BCAST},
      {"Gather", OTF2_COLLECTIVE_OP_GATHER},
      {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
      {"Scatter", OTF2_COLLECTIVE_OP_SCATTER},
      {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
      {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
      {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
      {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
      {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
      {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
      {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
      {"Reduce", OTF2_COLLECTIVE_OP_REDUCE},
      {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
      {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
      {"Scan", OTF2_COLLECTIVE_OP_SCAN},
      {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
  };
  if (fn.substr(0, 4) == "MPI_") fn.remove_prefix(4);
  auto it = kOps.find(fn);
  if (it == kOps.end() && !fn.empty() && fn[0] == 'I') it = kOps.find(fn.substr(1));
  // Neighbourhood collectives have no OTF2 operation of their own.
  return it == kOps.end() ? OTF2_COLLECTIVE_OP_ALLTOALLV : it->second;
}

OTF2_RegionRole RoleOf(const mpi::Function& f) {
  switch (f.collective) {
    case mpi::Collective::kAll: return f.category == Category::kColl && std::string_view(f.name).find("arrier") !=
                                              std::string_view::npos
                                          ? OTF2_REGION_ROLE_BARRIER
                                          : OTF2_REGION_ROLE_COLL_ALL2ALL;
    case mpi::Collective::kRootOut: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case mpi::Collective::kRootIn: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case mpi::Collective::kPrefix:
    case mpi::Collective::kNeighbour: return OTF2_REGION_ROLE_COLL_OTHER;
    case mpi::Collective::kNone: break;
  }
  switch (f.category) {
    case Category::kSend:
    case Category::kRecv:
    case Category::kIsend:
    case Category::kIrecv:
    case Category::kSendrecv:
    case Category::kMrecv:
    case Category::kProbe:
    case Category::kWait:
    case Category::kWaitall:
    case Category::kWaitany:
    case Category::kWaitsome: return OTF2_REGION_ROLE_POINT2POINT;
    case Category::kFileIo: return OTF2_REGION_ROLE_FILE_IO;
    default: return OTF2_REGION_ROLE_FUNCTION;
  }
}

// A nonblocking operation between the call that starts it and the one
// that completes it.
struct Live {
  enum Kind : uint8_t { kSend, kRecv, kColl } kind = kSend;
  int64_t comm = 0, peer = -1, tag = -1, bytes = 0, rbytes = 0, root = -1;
  std::string fn;
};

struct Comm {
  std::vector<int64_t> world;                  // world rank of each member
  std::unordered_map<int64_t, uint32_t> rank;  // and back
  int64_t parent = -1;
  OTF2_CommRef ref = 0;  // dense, in order of appearance
};

class Exporter {
 public:
  Exporter(OTF2_Archive* archive, ErrorCapture& errors) : archive_(archive), errors_(errors) {}
  ~Exporter() { OTF2_AttributeList_Delete(attributes_); }
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  Status Add(const trace::Record& rec, const std::string& where);
  Status Finish();
  ExportCounts& counts() { return counts_; }

 private:
  Status Call(const trace::MpiRecord& m, const std::string& where);
  OTF2_EvtWriter* WriterOf(int64_t rank);
  uint32_t CommRank(int64_t comm, int64_t world);
  OTF2_CommRef CommRef(int64_t comm);
  OTF2_StringRef String(const std::string& s);
  OTF2_RegionRef MpiRegion(int32_t fn);
  Status Check(OTF2_ErrorCode code, const std::string& what) {
    if (code == OTF2_SUCCESS) return OkStatus();
    return InputError("writing the OTF2 archive: " + what + errors_.Tail());
  }

  OTF2_Archive* archive_;
  ErrorCapture& errors_;
  ExportCounts counts_;
  int64_t world_size_ = 0;
  std::string app_;
  std::map<int64_t, Comm> comms_;
  std::vector<int64_t> comm_order_;  // comm ids by ref
  std::map<int64_t, trace::SiteRecord> sites_;
  // OTF2 wants dense definition ids: sites are regions 0..n-1 in id order
  // (their own ids for the collector's dense ones), MPI functions follow.
  std::unordered_map<int64_t, OTF2_RegionRef> site_region_;
  std::map<int64_t, std::string> hosts_;
  std::vector<OTF2_EvtWriter*> writers_;  // by rank
  std::vector<uint64_t> events_;          // by rank
  std::vector<int64_t> last_;             // by rank: time of its last event
  std::vector<std::unordered_map<int64_t, Live>> live_;  // by rank, request id
  std::vector<std::unordered_map<int64_t, Live>> persistent_;  // by rank, request id: what a start starts
  std::unordered_map<int32_t, OTF2_RegionRef> mpi_regions_;
  OTF2_RegionRef next_region_ = 0, first_mpi_region_ = 0;
  bool regions_fixed_ = false;  // site ids seen; MPI regions numbered after them
  std::unordered_map<std::string, OTF2_StringRef> strings_;
  std::vector<const std::string*> string_order_;
  int64_t max_time_ = 0;
  OTF2_AttributeList* attributes_ = OTF2_AttributeList_New();
  static constexpr OTF2_AttributeRef kSiteAttr = 0;
  static constexpr OTF2_AttributeRef kMsgAttr = kSiteAttr + 1 + kInitAttributeCount;
};

OTF2_StringRef Exporter::String(const std::string& s) {
  auto [it, inserted] = strings_.emplace(s, static_cast<OTF2_StringRef>(strings_.size()));
  if (inserted) string_order_.push_back(&it->first);
  return it->second;
}

OTF2_RegionRef Exporter::MpiRegion(int32_t fn) {
  auto [it, inserted] = mpi_regions_.emplace(fn, next_region_);
  if (inserted) ++next_region_;
  return it->second;
}

OTF2_CommRef Exporter::CommRef(int64_t comm) {
  auto c = comms_.find(comm);
  if (c != comms_.end()) return c->second.ref;
  if (comm != 0) {
    ++counts_.skipped["calls on communicators without a comm record (written on MPI_COMM_WORLD)"];
    return CommRef(0);
  }
  Comm& world = comms_[0];  // a stream without comm records
  for (int64_t r = 0; r < world_size_; ++r) world.world.push_back(r), world.rank.emplace(r, static_cast<uint32_t>(r));
  world.ref = static_cast<OTF2_CommRef>(comm_order_.size());
  comm_order_.push_back(0);
  return world.ref;
}

uint32_t Exporter::CommRank(int64_t comm, int64_t world) {
  auto c = comms_.find(comm);
  if (c == comms_.end()) {
    ++counts_.skipped["peers on communicators without a comm record (written as rank in MPI_COMM_WORLD)"];
    return static_cast<uint32_t>(world);
  }
  auto r = c->second.rank.find(world);
  if (r == c->second.rank.end()) {
    ++counts_.skipped["peers outside their communicator (written as undefined)"];
    return OTF2_UNDEFINED_UINT32;
  }
  return r->second;
}

OTF2_EvtWriter* Exporter::WriterOf(int64_t rank) {
  if (static_cast<size_t>(rank) >= writers_.size()) {
    writers_.resize(rank + 1, nullptr);
    events_.resize(rank + 1, 0);
    last_.resize(rank + 1, 0);
    live_.resize(rank + 1);
    persistent_.resize(rank + 1);
  }
  if (writers_[rank] == nullptr) writers_[rank] = OTF2_Archive_GetEvtWriter(archive_, static_cast<uint64_t>(rank));
  return writers_[rank];
}

Status Exporter::Add(const trace::Record& rec, const std::string& where) {
  using trace::RecordType;
  switch (rec.type) {
    case RecordType::kHeader:
      if (rec.header.has_ranks()) world_size_ = rec.header.ranks;
      if (rec.header.has_app()) app_ = rec.header.app;
      return OkStatus();
    case RecordType::kRank:
      if (rec.rank.has_host()) hosts_[rec.rank.rank] = rec.rank.host;
      world_size_ = std::max(world_size_, rec.rank.rank + 1);
      return OkStatus();
    case RecordType::kComm: {
      auto [it, inserted] = comms_.try_emplace(rec.comm.id);
      Comm& c = it->second;
      if (inserted) {
        c.ref = static_cast<OTF2_CommRef>(comm_order_.size());
        comm_order_.push_back(rec.comm.id);
      }
      c.world = rec.comm.ranks;
      c.rank.clear();
      for (size_t i = 0; i < c.world.size(); ++i) c.rank.emplace(c.world[i], static_cast<uint32_t>(i));
      c.parent = rec.comm.has_parent() ? rec.comm.parent : -1;
      return OkStatus();
    }
    case RecordType::kSite:
      if (regions_fixed_) {
        return InputError(where + ": site " + std::to_string(rec.site.id) +
                          " comes after mpi records; rp streams give their sites first");
      }
      sites_[rec.site.id] = rec.site;
      return OkStatus();
    case RecordType::kMpi:
      return Call(rec.mpi, where);
    case RecordType::kSample:
      ++counts_.skipped["sample records"];
      return OkStatus();
    default:
      ++counts_.skipped[rec.type_name + " records"];
      return OkStatus();
  }
}

Status Exporter::Call(const trace::MpiRecord& m, const std::string& where) {
  if (!regions_fixed_) {
    regions_fixed_ = true;
    for (const auto& [id, site] : sites_) site_region_.emplace(id, next_region_++);
    first_mpi_region_ = next_region_;
  }
  if (m.rank < 0 || (world_size_ > 0 && m.rank >= world_size_)) {
    return InputError(where + ": rank " + std::to_string(m.rank) + " is outside the run's " +
                      std::to_string(world_size_) + " ranks");
  }
  if (m.t0 < 0 || m.t1 < m.t0) {
    return InputError(where + ": times " + std::to_string(m.t0) + ".." + std::to_string(m.t1) +
                      " cannot be OTF2 timestamps (negative or ending before they start); run rp-clocksync first");
  }
  const int32_t fn = mpi::FindFunction(m.fn);
  if (fn < 0) {
    ++counts_.skipped["calls of functions rp does not know"];
    return OkStatus();
  }
  const mpi::Function& f = mpi::kFunctions[fn];
  OTF2_EvtWriter* w = WriterOf(m.rank);
  if (w == nullptr) return Check(OTF2_ERROR_INVALID, "cannot open the events of rank " + std::to_string(m.rank));
  int64_t t0 = m.t0, t1 = m.t1;
  if (t0 < last_[m.rank]) {  // threads of one rank overlapping: OTF2 wants each location's times in order
    ++counts_.skipped["calls starting before the rank's previous call ended (moved to its end)"];
    t1 += last_[m.rank] - t0;
    t0 = last_[m.rank];
  }
  last_[m.rank] = t1;
  max_time_ = std::max(max_time_, t1);
  auto& live = live_[m.rank];
  const int64_t comm = m.has_comm() ? m.comm : 0;
  const OTF2_CommRef comm_ref = CommRef(comm);
  uint64_t& events = events_[m.rank];
  const OTF2_RegionRef region = MpiRegion(fn);
  OTF2_AttributeList* attributes = nullptr;
  if (m.has_site()) {
    auto site = site_region_.find(m.site);
    if (site != site_region_.end()) {
      OTF2_AttributeList_AddRegionRef(attributes_, kSiteAttr, site->second);
      attributes = attributes_;
    } else {
      ++counts_.skipped["call sites without a site record"];
    }
  }
  if (f.category == Category::kSendInit || f.category == Category::kRecvInit || f.category == Category::kProbe) {
    // -1: not known (an unmatched MPI_Iprobe has no size).
    const int64_t values[] = {m.has_peer() ? m.peer : -1, m.has_tag() ? m.tag : -1, m.has_bytes() ? m.bytes : -1,
                              0, m.has_req() ? m.req : -1};
    for (int i = 0; i < kInitAttributeCount; ++i) {
      if (i == 3) {
        OTF2_AttributeList_AddCommRef(attributes_, kSiteAttr + 1 + i, comm_ref);
      } else {
        OTF2_AttributeList_AddInt64(attributes_, kSiteAttr + 1 + i, values[i]);
      }
    }
    attributes = attributes_;
  }
  if (m.has_msg()) {
    OTF2_AttributeList_AddInt64(attributes_, kMsgAttr, m.msg);
    attributes = attributes_;
  }
  RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_Enter(w, attributes, t0, region), "Enter"));
  ++events;
  const uint32_t tag = m.has_tag() ? static_cast<uint32_t>(m.tag) : 0;
  const uint64_t bytes = m.has_bytes() ? static_cast<uint64_t>(m.bytes) : 0;
  auto peer_rank = [&](int64_t world) { return CommRank(comm, world); };
  switch (f.category) {
    case Category::kSend:
    case Category::kSendrecv:
      if (m.has_peer() && m.peer >= 0) {
        RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiSend(w, nullptr, t0, peer_rank(m.peer), comm_ref, tag, bytes), "MpiSend"));
        ++events;
      }
      if (f.category == Category::kSendrecv && m.has_rpeer() && m.rpeer >= 0) {
        RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiRecv(w, nullptr, t1, peer_rank(m.rpeer), comm_ref,
                                                        m.has_rtag() ? static_cast<uint32_t>(m.rtag) : 0,
                                                        m.has_rbytes() ? static_cast<uint64_t>(m.rbytes) : 0),
                                 "MpiRecv"));
        ++events;
      }
      break;
    case Category::kRecv:
    case Category::kMrecv:
      if (f.nonblocking && m.has_req()) {  // MPI_Imrecv
        live[m.req] = Live{Live::kRecv, comm, m.has_peer() ? m.peer : -1, m.has_tag() ? m.tag : -1, m.has_bytes() ? m.bytes : 0};
        RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t0, m.req), "MpiIrecvRequest"));
        ++events;
      } else if (m.has_peer() && m.peer >= 0) {
        RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiRecv(w, nullptr, t1, peer_rank(m.peer), comm_ref, tag, bytes), "MpiRecv"));
        ++events;
      }
      break;
    case Category::kIsend:
      if (m.has_req()) {
        live[m.req] = Live{Live::kSend};
        RP_RETURN_IF_ERROR(Check(
            OTF2_EvtWriter_MpiIsend(w, nullptr, t0, peer_rank(m.has_peer() ? m.peer : 0), comm_ref, tag, bytes, m.req),
            "MpiIsend"));
        ++events;
      }
      break;
    case Category::kIrecv:
      if (m.has_req()) {
        live[m.req] = Live{Live::kRecv, comm, m.has_peer() ? m.peer : -1, m.has_tag() ? m.tag : -1, m.has_bytes() ? m.bytes : 0};
        RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t0, m.req), "MpiIrecvRequest"));
        ++events;
      }
      break;
    case Category::kColl:
      if (f.nonblocking) {
        if (m.has_req()) {
          live[m.req] = Live{Live::kColl, comm, -1, -1, m.has_bytes() ? m.bytes : 0, m.has_rbytes() ? m.rbytes : 0,
                             m.has_root() ? m.root : -1, m.fn};
          RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, t0, m.req),
                                   "NonBlockingCollectiveRequest"));
          ++events;
        }
        break;
      }
      RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t0), "MpiCollectiveBegin"));
      RP_RETURN_IF_ERROR(Check(
          OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t1, CollectiveOp(m.fn), comm_ref,
                                          m.has_root() && m.root >= 0 ? peer_rank(m.root) : OTF2_UNDEFINED_UINT32,
                                          bytes, m.has_rbytes() ? static_cast<uint64_t>(m.rbytes) : 0),
          "MpiCollectiveEnd"));
      events += 2;
      break;
    case Category::kSendInit:
    case Category::kRecvInit:  // OTF2 has no event for making one; its starts send and receive
      if (m.has_req()) {
        persistent_[m.rank][m.req] = Live{f.category == Category::kSendInit ? Live::kSend : Live::kRecv, comm,
                                          m.has_peer() ? m.peer : -1, m.has_tag() ? m.tag : -1, m.has_bytes() ? m.bytes : 0};
      }
      break;
    case Category::kStart:
    case Category::kStartall: {
      // A reused record keeps old array contents: absent fields are empty.
      std::vector<int64_t> started = m.has_reqs() ? m.reqs : std::vector<int64_t>();
      if (m.has_req()) started.push_back(m.req);
      for (const int64_t id : started) {
        auto it = persistent_[m.rank].find(id);
        if (it == persistent_[m.rank].end()) continue;
        const Live& op = it->second;
        live[id] = op;
        if (op.kind == Live::kSend) {
          RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiIsend(w, nullptr, t0, CommRank(op.comm, op.peer), CommRef(op.comm),
                                                           static_cast<uint32_t>(op.tag), op.bytes, id),
                                   "MpiIsend"));
        } else {
          RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t0, id), "MpiIrecvRequest"));
        }
        ++events;
      }
      break;
    }
    case Category::kRequestFree:
      if (m.has_req()) persistent_[m.rank].erase(m.req);
      break;
    default:
      break;
  }
  if (m.has_newcomm() && comms_.count(m.newcomm)) {
    RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_CommCreate(w, nullptr, t1, CommRef(m.newcomm)), "CommCreate"));
    ++events;
  }
  // What the call completed, at its end.
  static const std::vector<int64_t> kNone;
  static const std::vector<trace::Completion> kNoneResolved;
  const auto& resolved = m.has_resolved() ? m.resolved : kNoneResolved;
  for (const int64_t id : m.has_completed() ? m.completed : kNone) {
    auto it = live.find(id);
    if (it == live.end()) continue;  // persistent, or started before the stream
    const Live& op = it->second;
    if (op.kind == Live::kSend) {
      RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t1, id), "MpiIsendComplete"));
    } else if (op.kind == Live::kRecv) {
      int64_t peer = op.peer, rtag = op.tag, rbytes = op.bytes;
      for (const trace::Completion& c : resolved) {
        if (c.req == id) peer = c.peer, rtag = c.tag, rbytes = c.bytes;
      }
      RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_MpiIrecv(w, nullptr, t1,
                                                       peer >= 0 ? CommRank(op.comm, peer) : OTF2_UNDEFINED_UINT32,
                                                       CommRef(op.comm), static_cast<uint32_t>(rtag), rbytes, id),
                               "MpiIrecv"));
    } else {
      RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_NonBlockingCollectiveComplete(
                                   w, nullptr, t1, CollectiveOp(op.fn), CommRef(op.comm),
                                   op.root >= 0 ? CommRank(op.comm, op.root) : OTF2_UNDEFINED_UINT32, op.bytes,
                                   op.rbytes, id),
                               "NonBlockingCollectiveComplete"));
    }
    ++events;
    live.erase(it);
  }
  RP_RETURN_IF_ERROR(Check(OTF2_EvtWriter_Leave(w, nullptr, t1, region), "Leave"));
  ++events;
  ++counts_.mpi;
  return OkStatus();
}

Status Exporter::Finish() {
  const int64_t ranks = std::max<int64_t>(world_size_, static_cast<int64_t>(writers_.size()));
  counts_.ranks = ranks;
  for (size_t r = 0; r < writers_.size(); ++r) {
    if (writers_[r] != nullptr) {
      RP_RETURN_IF_ERROR(Check(OTF2_Archive_CloseEvtWriter(archive_, writers_[r]), "closing the events"));
    }
    counts_.events += static_cast<int64_t>(events_[r]);
  }
  RP_RETURN_IF_ERROR(Check(OTF2_Archive_CloseEvtFiles(archive_), "closing the event files"));
  if (OTF2_Archive_OpenDefFiles(archive_) == OTF2_SUCCESS) {
    for (int64_t r = 0; r < ranks; ++r) {
      OTF2_DefWriter* local = OTF2_Archive_GetDefWriter(archive_, static_cast<uint64_t>(r));
      if (local != nullptr) OTF2_Archive_CloseDefWriter(archive_, local);
    }
    OTF2_Archive_CloseDefFiles(archive_);
  }
  OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive_);
  if (defs == nullptr) return Check(OTF2_ERROR_INVALID, "cannot open the global definitions");
  RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000, 0,
                                                                    static_cast<uint64_t>(max_time_) + 1,
                                                                    OTF2_UNDEFINED_TIMESTAMP),
                           "clock properties"));
  // Strings are written first but named as the other definitions need them.
  const OTF2_StringRef empty = String("");
  const OTF2_StringRef machine = String(app_.empty() ? "rp" : app_);
  const OTF2_StringRef machine_class = String("machine"), node_class = String("node");
  std::map<std::string, OTF2_SystemTreeNodeRef> nodes;
  for (const auto& [rank, host] : hosts_) nodes.emplace(host, 0);
  OTF2_SystemTreeNodeRef next_node = 1;
  for (auto& [host, ref] : nodes) ref = next_node++;
  const OTF2_StringRef thread = String("Master thread"), site_attr = String(kSiteAttribute);
  const OTF2_StringRef site_attr_doc = String("rp call site of the MPI call (a region)");
  const OTF2_StringRef mpi_file = String("MPI");
  OTF2_StringRef init_attrs[kInitAttributeCount];
  for (int i = 0; i < kInitAttributeCount; ++i) init_attrs[i] = String(kInitAttributes[i]);
  const OTF2_StringRef init_doc = String("what an MPI call without OTF2 events had (rp)");
  const OTF2_StringRef msg_attr = String(kMsgAttribute);
  std::vector<OTF2_StringRef> rank_names;
  for (int64_t r = 0; r < ranks; ++r) rank_names.push_back(String("MPI Rank " + std::to_string(r)));
  for (auto& [host, ref] : nodes) String(host);
  for (const auto& [id, site] : sites_) {
    String(site.has_fn() ? site.fn : "site " + std::to_string(id));
    if (site.has_file()) String(site.file);
  }
  for (const auto& [fn, ref] : mpi_regions_) String(mpi::kFunctions[fn].name);  // any order: strings are deduplicated
  if (comms_.empty()) CommRef(0);
  for (const auto& [id, comm] : comms_) String(id == 0 ? "MPI_COMM_WORLD" : "Comm " + std::to_string(id));
  for (size_t i = 0; i < string_order_.size(); ++i) {
    RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteString(defs, static_cast<OTF2_StringRef>(i),
                                                              string_order_[i]->c_str()),
                             "strings"));
  }
  RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, machine, machine_class,
                                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE),
                           "system tree"));
  for (const auto& [host, ref] : nodes) {
    RP_RETURN_IF_ERROR(
        Check(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, ref, String(host), node_class, 0), "system tree"));
  }
  for (int64_t r = 0; r < ranks; ++r) {
    auto host = hosts_.find(r);
    const OTF2_SystemTreeNodeRef parent = host == hosts_.end() ? 0 : nodes[host->second];
    RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteLocationGroup(defs, r, rank_names[r],
                                                                     OTF2_LOCATION_GROUP_TYPE_PROCESS, parent,
                                                                     OTF2_UNDEFINED_LOCATION_GROUP),
                             "location groups"));
  }
  for (int64_t r = 0; r < ranks; ++r) {
    const uint64_t n = static_cast<size_t>(r) < events_.size() ? events_[r] : 0;
    RP_RETURN_IF_ERROR(Check(
        OTF2_GlobalDefWriter_WriteLocation(defs, r, thread, OTF2_LOCATION_TYPE_CPU_THREAD, n, r), "locations"));
  }
  for (const auto& [id, site] : sites_) {
    const OTF2_StringRef name = String(site.has_fn() ? site.fn : "site " + std::to_string(id));
    RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteRegion(
                                 defs, site_region_.at(id), name, name, empty, OTF2_REGION_ROLE_FUNCTION,
                                 OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                 site.has_file() ? String(site.file) : OTF2_UNDEFINED_STRING,
                                 site.has_line() ? static_cast<uint32_t>(site.line) : 0,
                                 site.has_line() ? static_cast<uint32_t>(site.line) : 0),
                             "regions"));
  }
  std::map<OTF2_RegionRef, int32_t> mpi_by_ref;
  for (const auto& [fn, ref] : mpi_regions_) mpi_by_ref.emplace(ref, fn);
  for (const auto& [ref, fn] : mpi_by_ref) {
    const mpi::Function& f = mpi::kFunctions[fn];
    const OTF2_StringRef name = String(f.name);
    RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteRegion(defs, ref, name, name, empty, RoleOf(f),
                                                              OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, mpi_file, 0, 0),
                             "regions"));
  }
  RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteAttribute(defs, kSiteAttr, site_attr, site_attr_doc,
                                                               OTF2_TYPE_REGION),
                           "attributes"));
  for (int i = 0; i < kInitAttributeCount; ++i) {
    RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteAttribute(defs, kSiteAttr + 1 + i, init_attrs[i], init_doc,
                                                                 i == 3 ? OTF2_TYPE_COMM : OTF2_TYPE_INT64),
                             "attributes"));
  }
  RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteAttribute(defs, kMsgAttr, msg_attr, init_doc, OTF2_TYPE_INT64),
                           "attributes"));
  // Group 0: the ranks' locations; group k + 1: the members of the communicator whose ref is k.
  std::vector<uint64_t> locations(ranks);
  for (int64_t r = 0; r < ranks; ++r) locations[r] = r;
  RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteGroup(defs, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                           OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                           static_cast<uint32_t>(ranks), locations.data()),
                           "groups"));
  for (const int64_t id : comm_order_) {
    const Comm& comm = comms_.at(id);
    std::vector<uint64_t> members(comm.world.begin(), comm.world.end());
    RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteGroup(defs, comm.ref + 1, empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                             static_cast<uint32_t>(members.size()), members.data()),
                             "groups"));
  }
  for (const int64_t id : comm_order_) {
    const Comm& comm = comms_.at(id);
    auto parent = comms_.find(comm.parent);
    RP_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteComm(
                                 defs, comm.ref, String(id == 0 ? "MPI_COMM_WORLD" : "Comm " + std::to_string(id)),
                                 comm.ref + 1, parent == comms_.end() ? OTF2_UNDEFINED_COMM : parent->second.ref,
                                 OTF2_COMM_FLAG_NONE),
                             "communicators"));
  }
  return OkStatus();
}

bool IsArchiveDir(const std::string& dir) {
  struct stat st;
  return ::stat((dir + "/traces.otf2").c_str(), &st) == 0;
}

}  // namespace

Expected<ExportCounts> Export(trace::InputSet& input, const std::string& dir, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    const bool empty_dir = fs::is_directory(dir, ec) && fs::is_empty(dir, ec);
    if (!empty_dir && !(force && IsArchiveDir(dir))) {
      return InputError(dir + ": exists" +
                        (IsArchiveDir(dir) ? std::string(" (an OTF2 archive; -f replaces it)")
                                           : std::string(" and is not an empty directory; refusing to write into it")));
    }
  }
  const std::string tmp = dir + ".rp-tmp-" + std::to_string(::getpid());
  fs::remove_all(tmp, ec);
  ErrorCapture errors;
  ExportCounts counts;
  {
    Library::Archive archive(OTF2_Archive_Open(tmp.c_str(), "traces", OTF2_FILEMODE_WRITE, 256 * 1024,
                                               4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE));
    if (archive == nullptr) return InputError(dir + ": cannot create the OTF2 archive" + errors.Tail());
    auto cleanup = [&](Status s) {
      archive.reset();
      fs::remove_all(tmp, ec);
      return s;
    };
    OTF2_Archive_SetFlushCallbacks(archive.get(), &kFlushCallbacks, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(archive.get());
    OTF2_Archive_SetCreator(archive.get(), (std::string("rp-cat ") + kVersion).c_str());
    if (OTF2_Archive_OpenEvtFiles(archive.get()) != OTF2_SUCCESS) {
      return cleanup(InputError(dir + ": cannot create the event files" + errors.Tail()));
    }
    Exporter exporter(archive.get(), errors);
    trace::Record rec;
    for (;;) {
      auto more = input.Next(&rec);
      if (!more.ok()) return cleanup(more.status());
      if (!*more) break;
      Status s = exporter.Add(rec, input.where());
      if (!s.ok()) return cleanup(s);
    }
    Status s = exporter.Finish();
    if (!s.ok()) return cleanup(s);
    counts = exporter.counts();
    if (OTF2_Archive_Close(archive.release()) != OTF2_SUCCESS) {
      fs::remove_all(tmp, ec);
      return InputError(dir + ": cannot finish the OTF2 archive" + errors.Tail());
    }
  }
  if (fs::exists(dir, ec)) fs::remove_all(dir, ec);
  fs::rename(tmp, dir, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    return InputError(dir + ": cannot move the archive into place: " + ec.message());
  }
  return counts;
}

}  // namespace rp::otf2
