#include "lib/recorder/events.h"

#include <algorithm>
#include <memory>
#include <queue>
#include <string>

#include "lib/mpi/functions.h"
#include "lib/recorder/raw_file.h"

namespace rp::recorder {
namespace {

// Pass 2: one cursor per rank over its events and samples.
struct Cursor {
  RankInfo* info = nullptr;
  std::unique_ptr<RawFile> file;
  std::vector<char> record;  // the pending record's bytes
  int64_t time = 0;
  int64_t seq = 0;
  int64_t order = 0;     // file order, for ties
  int64_t overhead = 0;  // the pending event's collector work (timer units)

  bool Advance() {
    int64_t next_overhead = 0;  // an OverheadRecord applies to the next event
    while (const raw::RecordHeader* rec = file->Next()) {
      if (rec->kind == raw::kOverhead && rec->size >= sizeof(raw::OverheadRecord)) {
        next_overhead = reinterpret_cast<const raw::OverheadRecord*>(rec)->time;
        continue;
      }
      if (rec->kind != raw::kEvent && rec->kind != raw::kSample) continue;
      overhead = rec->kind == raw::kEvent ? next_overhead : 0;
      record.assign(reinterpret_cast<const char*>(rec), reinterpret_cast<const char*>(rec) + rec->size);
      time = info->time.ToNs(rec->kind == raw::kEvent ? reinterpret_cast<const raw::EventFixed*>(rec)->t0
                                                      : reinterpret_cast<const raw::SampleFixed*>(rec)->t);
      ++order;
      return true;
    }
    return false;
  }
  const raw::RecordHeader* head() const {
    return reinterpret_cast<const raw::RecordHeader*>(record.data());
  }
};

void ToMpiRecord(const EventView& e, Cursor& c, trace::MpiRecord* m) {
  const RankInfo& info = *c.info;
  m->Clear();
  m->set_rank(info.rank);
  m->set_seq(c.seq++);
  const uint16_t fn = e.fixed->h.fn;
  m->set_fn(fn < mpi::kFunctionCount ? mpi::kFunctions[fn].name : "MPI_unknown_" + std::to_string(fn));
  m->set_t0(info.time.ToNs(e.fixed->t0));
  const int64_t end = e.fixed->t0 + e.duration();
  m->set_t1(std::max(m->t0, info.time.ToNs(end)));
  // The collector's work ends the call (or, in MPI_Finalize, is in it): in
  // ns, within the call's span.
  if (c.overhead > 0) {
    m->set_rp(std::clamp<int64_t>(m->t1 - info.time.ToNs(end - c.overhead), 0, m->t1 - m->t0));
  }
  if (e.fixed->site) {
    auto it = info.site_of.find(e.fixed->site);
    if (it != info.site_of.end()) m->set_site(it->second.first);
  }
  auto global_comm = [&](int64_t local) -> int64_t {
    return local >= 0 && static_cast<size_t>(local) < info.comm_global.size() ? info.comm_global[local] : -1;
  };
  auto rank_field = [](int64_t value) { return value >= -2; };  // -3: not a rank of the group
  if (e.has(raw::kComm32) && global_comm(e.fields[raw::kComm32]) >= 0) {
    m->set_comm(global_comm(e.fields[raw::kComm32]));
  }
  if (e.has(raw::kPeer32) && rank_field(e.fields[raw::kPeer32])) m->set_peer(e.fields[raw::kPeer32]);
  if (e.has(raw::kTag32)) m->set_tag(e.fields[raw::kTag32]);
  if (e.has(raw::kBytes64)) m->set_bytes(e.fields[raw::kBytes64]);
  if (e.has(raw::kRpeer32) && rank_field(e.fields[raw::kRpeer32])) m->set_rpeer(e.fields[raw::kRpeer32]);
  if (e.has(raw::kRtag32)) m->set_rtag(e.fields[raw::kRtag32]);
  if (e.has(raw::kRbytes64)) m->set_rbytes(e.fields[raw::kRbytes64]);
  if (e.has(raw::kRoot32) && e.fields[raw::kRoot32] >= 0) m->set_root(e.fields[raw::kRoot32]);
  if (e.has(raw::kOp32)) {
    const int64_t op = e.fields[raw::kOp32];
    m->set_op(op >= 0 && op < static_cast<int64_t>(std::size(raw::kOpNames)) ? raw::kOpNames[op] : "user");
  }
  if (e.has(raw::kReq32)) m->set_req(e.fields[raw::kReq32]);
  if (e.fixed->n_reqs > 0) {
    m->mutable_reqs().assign(e.started, e.started + e.fixed->n_reqs);
  }
  if (e.fixed->n_completed > 0) {
    m->mutable_completed().assign(e.completed, e.completed + e.fixed->n_completed);
  }
  if (e.fixed->n_resolved > 0) {
    std::vector<trace::Completion>& resolved = m->mutable_resolved();
    resolved.clear();
    for (size_t i = 0; i < e.fixed->n_resolved; ++i) {
      const raw::ResolvedEntry r = e.resolved_at(i);
      resolved.push_back(trace::Completion{r.req, r.peer, r.tag, r.bytes});
    }
  }
  if (e.has(raw::kMsg32)) m->set_msg(e.fields[raw::kMsg32]);
  if (e.has(raw::kNewcomm32) && global_comm(e.fields[raw::kNewcomm32]) >= 0) {
    m->set_newcomm(global_comm(e.fields[raw::kNewcomm32]));
  }
  if (e.has(raw::kWin32)) m->set_win(e.fields[raw::kWin32]);
  if (e.has(raw::kFh32)) m->set_fh(e.fields[raw::kFh32]);
  if (e.has(raw::kOffset64)) m->set_offset(e.fields[raw::kOffset64]);
}

void ToSampleRecord(const SampleView& s, const Cursor& c, int64_t weight, trace::SampleRecord* out) {
  out->Clear();
  out->set_rank(c.info->rank);
  out->set_t(c.info->time.ToNs(s.fixed->t));
  std::vector<int64_t>& stack = out->mutable_stack();
  stack.clear();
  for (uint32_t i = 0; i < s.fixed->depth; ++i) {
    auto it = c.info->site_of.find(s.frames[i]);
    if (it == c.info->site_of.end()) continue;
    for (int64_t level = 0; level < it->second.second; ++level) stack.push_back(it->second.first + level);
  }
  if (weight > 0) out->set_weight(weight * (1 + static_cast<int64_t>(s.fixed->overrun)));
}

}  // namespace

Expected<EventCounts> WriteEvents(std::vector<RankInfo>& ranks, const EventRoute& route) {
  EventCounts counts;
  std::vector<Cursor> cursors;
  cursors.reserve(ranks.size());
  for (RankInfo& info : ranks) {
    auto file = RawFile::Open(info.path);
    if (!file.ok()) continue;
    Cursor cursor;
    cursor.info = &info;
    cursor.file = std::move(*file);
    cursors.push_back(std::move(cursor));
  }
  auto later = [&](size_t a, size_t b) {
    const Cursor& x = cursors[a];
    const Cursor& y = cursors[b];
    if (x.time != y.time) return x.time > y.time;
    return x.info->rank > y.info->rank;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < cursors.size(); ++i) {
    if (cursors[i].Advance()) heap.push(i);
  }
  trace::MpiRecord mpi;
  trace::SampleRecord sample;
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    Cursor& c = cursors[i];
    const raw::RecordHeader* rec = c.head();
    if (rec->kind == raw::kEvent) {
      EventView event;
      if (ParseEvent(rec, &event)) {
        ToMpiRecord(event, c, &mpi);
        RP_ASSIGN_OR_RETURN(trace::Writer * out, route(c.info->rank, c.time));
        RP_RETURN_IF_ERROR(out->Write(mpi));
        ++counts.events;
      }
    } else {
      SampleView view;
      if (ParseSample(rec, &view)) {
        const int hz = c.info->header.sample_hz;
        ToSampleRecord(view, c, hz > 0 ? 1'000'000'000LL / hz : 0, &sample);
        RP_ASSIGN_OR_RETURN(trace::Writer * out, route(c.info->rank, c.time));
        RP_RETURN_IF_ERROR(out->Write(sample));
        ++counts.samples;
      }
    }
    if (c.Advance()) heap.push(i);
  }
  return counts;
}

}  // namespace rp::recorder
