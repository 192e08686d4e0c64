#include "lib/window/window.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <unordered_map>


namespace rp::window {
namespace {

using mpi::Category;

// Integer arithmetic: the address may lie past the end of an allocation.
void PrefetchForWrite(const void* at, size_t ahead) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(at) + ahead), 1);
}

std::string RankSeq(int64_t rank, int64_t seq) { return "rank " + std::to_string(rank) + " seq " + std::to_string(seq); }

// Sets every field of *out from an mpi record (its arrays appended to ids
// and resolved); false if a field Event keeps in 32 bits does not fit
// them. Inline in BufferRecord, which constructs the event unset.
[[gnu::always_inline]] inline bool ToEvent(const trace::MpiRecord& m, int32_t fn, std::vector<int64_t>* ids,
                                           std::vector<trace::Completion>* resolved, Event* out) {
  Event& e = *out;  // every field set: no temporary to copy
  bool fits = true;
  e.t0 = m.t0;
  e.t1 = m.t1;
  e.seq = m.seq;
  e.rank = static_cast<int32_t>(m.rank);
  e.fn = fn;
  // kNone (INT32_MIN) is no value: a field must lie above it.
  auto get = [&fits](bool has, int64_t v) {
    fits &= !has || (v > INT32_MIN && v <= INT32_MAX);
    return has ? static_cast<int32_t>(v) : kNone;
  };
  e.site = get(m.has_site(), m.site);
  e.comm = get(m.has_comm(), m.comm);
  e.peer = get(m.has_peer(), m.peer);
  e.tag = get(m.has_tag(), m.tag);
  e.rpeer = get(m.has_rpeer(), m.rpeer);
  e.rtag = get(m.has_rtag(), m.rtag);
  e.root = get(m.has_root(), m.root);
  e.req = m.has_req() ? m.req : kNoId;
  e.msg = m.has_msg() ? m.msg : kNoId;
  e.phase = get(m.has_phase(), m.phase);
  e.bytes = m.has_bytes() ? m.bytes : 0;
  e.rbytes = m.has_rbytes() ? m.rbytes : 0;
  e.sized = m.has_bytes() || m.has_rbytes();
  e.rp = m.has_rp() ? std::clamp<int64_t>(m.rp, 0, std::max<int64_t>(m.t1 - m.t0, 0)) : 0;
  e.line = 0;
  // An array's slice of the shared vector (empty when absent: a record's
  // arrays keep stale values when it lacks them).
  auto slice = [](bool has, const auto& from, auto* to, uint32_t* begin, uint32_t* count) {
    *begin = static_cast<uint32_t>(to->size());
    *count = has ? static_cast<uint32_t>(from.size()) : 0;
    if (has) to->insert(to->end(), from.begin(), from.end());
  };
  slice(m.has_completed(), m.completed, ids, &e.completed_begin, &e.completed_count);
  slice(m.has_reqs(), m.reqs, ids, &e.started_begin, &e.started_count);
  slice(m.has_resolved(), m.resolved, resolved, &e.resolved_begin, &e.resolved_count);
  return fits;
}

}  // namespace

void Window::Clear() {
  ends_with_sync = false;
  lines.clear();
  blocks.clear();
  events.clear();
  ids.clear();
  resolved.clear();
  inherited.clear();
  for (auto& r : by_rank) r.clear();
}

void WarnAboutInput(const WindowReader& reader) {
  for (const std::string& warning : reader.input_report().Warnings(reader.hold_limit())) spdlog::warn(warning);
}

Status WritePrelude(const Dictionary& dict, const std::string& tool, trace::Writer* out,
                    const std::function<void(trace::HeaderRecord&)>& amend, bool header_only,
                    std::optional<trace::RecordType> replaced) {
  for (size_t i = 0; i < dict.prelude_types.size(); ++i) {
    if (dict.prelude_types[i] == trace::RecordType::kHeader) {
      trace::HeaderRecord header = dict.header;
      header.mutable_producer().push_back(tool);
      if (amend) amend(header);
      RP_RETURN_IF_ERROR(out->Write(header));
    } else if (!header_only && dict.prelude_types[i] != replaced) {
      RP_RETURN_IF_ERROR(out->WriteRaw(dict.prelude_lines[i]));
    }
  }
  return OkStatus();
}

Expected<std::string> PreludeText(const Dictionary& dict, const std::string& tool,
                                  const std::function<void(trace::HeaderRecord&)>& amend, bool header_only,
                                  std::optional<trace::RecordType> replaced) {
  std::string prelude;
  trace::Writer text(trace::StringOutput(&prelude));
  RP_RETURN_IF_ERROR(WritePrelude(dict, tool, &text, amend, header_only, replaced));
  RP_RETURN_IF_ERROR(text.Close());
  return prelude;
}

int64_t Dictionary::CommSize(int64_t comm) const {
  auto it = comm_ranks.find(comm);
  if (it != comm_ranks.end()) return static_cast<int64_t>(it->second.size());
  return comm == 0 ? ranks : 0;
}

bool Dictionary::SpansWorld(int64_t comm) const {
  if (comm == 0) return true;  // MPI_COMM_WORLD
  // One lookup (IsGlobalSync asks per collective call), not CommSize's.
  auto it = comm_ranks.find(comm);
  return it != comm_ranks.end() && ranks > 0 && static_cast<int64_t>(it->second.size()) == ranks;
}

Status WindowReader::Start() {
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, input_.Next(&record_));
    if (!more) {
      input_done_ = true;
      return OkStatus();
    }
    ++records_read_;
    if (record_.type == trace::RecordType::kMpi || record_.type == trace::RecordType::kSample) {
      have_first_ = true;
      // Every rank of the world counts for a boundary, seen yet or not:
      // the header's, and any a rank or comm record names (a header
      // without "ranks" would otherwise let windows end before ranks that
      // come later in the stream). Rank records say how many events each
      // will deliver.
      if (dict_.ranks > 0) ranks_.resize(dict_.ranks);
      for (const trace::RankRecord& r : dict_.rank_records) {
        RankState& rank = Rank(r.rank);
        if (r.has_events()) rank.expected = r.events;
      }
      for (const auto& [id, members] : dict_.comm_ranks) {
        for (int64_t member : members) Rank(member);
      }
      // A parallel stage's process reads its share of the ranks
      // (trace::InputSet::SelectParts): the others hold no boundary back.
      for (size_t r = 0; r < ranks_.size(); ++r) {
        if (!input_.Delivers(static_cast<int64_t>(r))) ranks_[r].expected = 0;
      }
      return OkStatus();
    }
    RP_RETURN_IF_ERROR(CheckDictionaryRecord());
    if (record_.type == trace::RecordType::kHeader) {
      dict_.header = record_.header;
      if (record_.header.has_ranks()) dict_.ranks = record_.header.ranks;
    } else if (record_.type == trace::RecordType::kComm) {
      dict_.comm_ranks[record_.comm.id] = record_.comm.ranks;
    }
    if (record_.type == trace::RecordType::kRank) dict_.rank_records.push_back(record_.rank);
    if (record_.type == trace::RecordType::kSite) dict_.sites.push_back(record_.site);
    if (record_.type == trace::RecordType::kClock) dict_.clocks.push_back(record_.clock);
    dict_.prelude_types.push_back(record_.type);
    dict_.prelude_lines.emplace_back(record_.line);
  }
}

bool IsGlobalSync(const Event& e, const Dictionary& dict) {
  const mpi::Function* f = e.function();
  return f != nullptr && f->collective == mpi::Collective::kAll && !f->nonblocking && e.comm != kNone &&
         dict.SpansWorld(e.comm) && !e.MovedNothingAnywhere();
}

WindowReader::RankState& WindowReader::Rank(int64_t rank) {
  if (static_cast<size_t>(rank) >= ranks_.size()) {
    ranks_.resize(rank + 1);
    recount_ = true;
  }
  return ranks_[rank];
}

void WindowReader::Account(const Event& e, const std::vector<int64_t>& ids, RankState& rank) {
  const mpi::Function* f = e.function();
  if (f == nullptr) return;
  auto activate = [&rank](Request& r) {
    if (!r.active) ++rank.active;
    r.active = true;
    if (r.sends) ++rank.sent;
  };
  auto start = [&](int64_t id) { activate(rank.requests.Get(id)); };
  auto create = [&](bool persistent, bool sends, bool receives) {
    if (e.req == kNoId) return;
    Request& r = rank.requests.Get(e.req);
    if (r.active) --rank.active;  // a reused id: the old request is gone
    r = Request{false, persistent, sends, receives};
    if (!persistent) activate(r);
  };
  const bool peer_real = e.peer != -2;
  switch (f->category) {
    case Category::kSend:
      rank.sent += peer_real;
      break;
    case Category::kRecv:
    case Category::kMrecv:
      if (f->nonblocking) create(false, false, peer_real);
      else rank.received += peer_real;
      break;
    case Category::kSendrecv:
      rank.sent += peer_real;
      rank.received += e.rpeer != -2;
      break;
    case Category::kIsend:
      create(false, peer_real, false);
      break;
    case Category::kIrecv:
      create(false, false, peer_real);
      break;
    case Category::kSendInit:
      create(true, peer_real, false);
      break;
    case Category::kRecvInit:
      create(true, false, peer_real);
      break;
    case Category::kStart:
      if (e.req != kNoId) start(e.req);
      break;
    case Category::kStartall:
      for (uint32_t i = 0; i < e.started_count; ++i) start(ids[e.started_begin + i]);
      break;
    case Category::kCancel:
      // A cancelled receive is posted for a message that never comes (why
      // programs cancel); were the cancel too late, the message is counted
      // sent and never received, and windows stay open until --hold.
      if (e.req != kNoId) {
        if (Request* r = rank.requests.Find(e.req)) r->receives = false;
      }
      break;
    case Category::kRequestFree:
      if (e.req != kNoId) {
        if (Request* r = rank.requests.Find(e.req)) {
          if (r->active) --rank.active;
          rank.requests.Erase(e.req);
        }
      }
      break;
    default:
      if (f->nonblocking) create(false, false, false);  // nonblocking collectives, RMA, I/O
      break;
  }
  // The event's slices, not the record's arrays: those keep stale values
  // when the record has none.
  for (uint32_t i = 0; i < e.completed_count; ++i) {
    const int64_t id = ids[e.completed_begin + i];
    Request* r = rank.requests.Find(id);
    if (r == nullptr || !r->active) continue;
    r->active = false;
    --rank.active;
    if (r->receives) ++rank.received;
    if (!r->persistent) rank.requests.Erase(id);
  }
}

int64_t WindowReader::Reached() {
  // A rank that delivered all its events (it may have died, or had none)
  // holds no boundary back.
  if (recount_) {
    recount_ = false;
    fewest_ = INT64_MAX, at_fewest_ = 0, most_ = 0;
    for (const RankState& r : ranks_) {
      most_ = std::max(most_, r.syncs);
      if (!Delivering(r)) continue;
      if (r.syncs < fewest_) fewest_ = r.syncs, at_fewest_ = 0;
      at_fewest_ += r.syncs == fewest_;
    }
  }
  return std::min(fewest_, most_);
}

bool WindowReader::Clean(int64_t k) const {
  if (boundaries_ == Boundaries::kEverySync) return true;
  SyncParts parts;
  CleanParts(k, &parts);
  return parts.active == 0 && parts.sent == parts.received;
}

void WindowReader::CleanParts(int64_t k, SyncParts* parts) const {
  for (const RankState& r : ranks_) {
    // A rank that delivered all its events without reaching this
    // synchronization (it died): what it left stands.
    const bool left = r.at_base + r.pending() < k;
    const RankState::AtSync at = left ? RankState::AtSync{r.active, r.sent, r.received} : r.pending_at(k);
    parts->active += at.active;
    parts->sent += at.sent;
    parts->received += at.received;
  }
}

// Ranks index arrays and Event keeps MPI ints (ranks, tags, roots) and the
// producer's small ids in 32 bits: a value beyond them is an input error,
// not a silently wrapped number or an allocation the size of the value.
// A rank beyond header.ranks is tolerated (stages warn of what it breaks),
// one beyond any run's size is not: it would size per-rank arrays.
int64_t WindowReader::RankLimit() const { return std::max(dict_.ranks, kRanksWithoutHeader); }

Status WindowReader::CheckDictionaryRecord() const {
  auto out_of_range = [this](const std::string& what, int64_t value, int64_t limit) {
    return InputError(input_.where() + ": " + what + " = " + std::to_string(value) + " is out of range 0.." +
                      std::to_string(limit - 1) + " (is this an rp-trace stream of an MPI run?)");
  };
  switch (record_.type) {
    case trace::RecordType::kHeader:
      if (record_.header.has_ranks() && (record_.header.ranks < 0 || record_.header.ranks > kMostRanks)) {
        return out_of_range("header field \"ranks\"", record_.header.ranks, kMostRanks + 1);
      }
      break;
    case trace::RecordType::kRank:
      if (record_.rank.rank < 0 || record_.rank.rank >= RankLimit()) {
        return out_of_range("rank record field \"rank\"", record_.rank.rank, RankLimit());
      }
      break;
    case trace::RecordType::kClock:
      // Clock offsets are added to times: they share their bound.
      if (record_.clock.has_t() && !TimeInRange(record_.clock.t)) return TimeError("clock", "t", record_.clock.t);
      if (record_.clock.has_offset() && !TimeInRange(record_.clock.offset)) {
        return TimeError("clock", "offset", record_.clock.offset);
      }
      break;
    case trace::RecordType::kComm: {
      for (int64_t member : record_.comm.ranks) {
        if (member < 0 || member >= RankLimit()) {
          return out_of_range("comm record " + std::to_string(record_.comm.id) + ": member", member,
                              RankLimit());
        }
      }
      // A rank is a member once: [0,0,1] would pass for a 3-rank world.
      std::vector<int64_t> members = record_.comm.ranks;
      std::sort(members.begin(), members.end());
      if (auto twice = std::adjacent_find(members.begin(), members.end()); twice != members.end()) {
        return InputError(input_.where() + ": comm record " + std::to_string(record_.comm.id) + " lists rank " +
                          std::to_string(*twice) + " twice");
      }
      break;
    }
    default:
      break;
  }
  return OkStatus();
}

Status WindowReader::TimeError(const char* type, const char* field, int64_t value) const {
  return InputError(input_.where() + ": " + type + " record field \"" + field + "\" = " + std::to_string(value) +
                    " ns lies beyond +-2^62 ns (146 years): no time difference could be taken");
}

Status WindowReader::RankError(int64_t rank) const {
  const int64_t limit = RankLimit();
  const char* type = record_.type == trace::RecordType::kMpi ? "mpi" : "sample";
  return InputError(input_.where() + ": " + type + " record has rank " +
                    std::to_string(rank) + ", outside 0.." + std::to_string(limit - 1));
}

// The error for an mpi record that ToEvent found a field of too wide for.
Status WindowReader::WideFieldError() const {
  const trace::MpiRecord& m = record_.mpi;
  using M = trace::MpiRecord;
  const std::pair<int, int64_t> fields[] = {{M::k_site, m.site},   {M::k_comm, m.comm}, {M::k_peer, m.peer},
                                            {M::k_tag, m.tag},     {M::k_rpeer, m.rpeer}, {M::k_rtag, m.rtag},
                                            {M::k_root, m.root},   {M::k_phase, m.phase}};
  constexpr const char* kNames[] = {"site", "comm", "peer", "tag", "rpeer", "rtag", "root", "phase"};
  for (size_t i = 0; i < std::size(fields); ++i) {
    const auto [field, value] = fields[i];
    if (((m.present >> field) & 1) != 0 && (value <= INT32_MIN || value > INT32_MAX)) {
      return InputError(input_.where() + ": mpi record field \"" + kNames[i] + "\" = " + std::to_string(value) +
                        " does not fit 32 bits (rank " + std::to_string(m.rank) + ", seq " + std::to_string(m.seq) + ")");
    }
  }
  return InputError(input_.where() + ": mpi record has a field that does not fit 32 bits");
}

// Adds the current record's block to the window's, which stay in serial
// order, once each. One input's blocks come in serial order; a split
// trace's parts interleave theirs, so a block may be an earlier one.
void WindowReader::HoldBlock(Window* window) {
  auto& blocks = window->blocks;
  const trace::InputBlock* block = input_.block_address();
  if (blocks.empty() || blocks.back()->serial < block->serial) {
    blocks.push_back(input_.block());
    return;
  }
  for (size_t i = blocks.size(), seen = 0; i-- > 0 && seen < 8; ++seen) {  // the parts' current blocks
    if (blocks[i].get() == block) return;
  }
  auto at = std::lower_bound(blocks.begin(), blocks.end(), block->serial,
                             [](const auto& held, uint64_t serial) { return held->serial < serial; });
  if (at == blocks.end() || at->get() != block) blocks.insert(at, input_.block());
}

// Buffers record_ with its rank's level; accounts the requests and messages
// of mpi records when windows must end clean.
Status WindowReader::BufferRecord() {
  // Records of no rank join the window being built.
  int64_t level = next_boundary_ - 1;
  if (record_.type == trace::RecordType::kMpi || record_.type == trace::RecordType::kSample) {
    const int64_t rank = record_.type == trace::RecordType::kMpi ? record_.mpi.rank : record_.sample.rank;
    if (rank < 0 || rank >= RankLimit()) return RankError(rank);
    const bool first_seen_late = static_cast<size_t>(rank) >= ranks_.size() && window_index_ > 0;
    RankState& state = Rank(rank);
    if (first_seen_late) [[unlikely]] {
      // Windows have ended without this rank: it cannot hold one back now.
      state.given_up = true;
      state.expected = 0;
      if (report_.late_ranks++ == 0) {
        report_.first_late_rank = rank;
        report_.first_late_rank_at = {window_index_, 0, record_.type == trace::RecordType::kMpi ? record_.mpi.t0
                                                                                            : record_.sample.t,
                                      rank};
      }
    }
    state.last_read = records_read_;
    if (state.given_up) [[unlikely]] ++report_.late_records;
    level = state.syncs;
  }
  Bucket& bucket = BucketOf(level);
  Window& pending = bucket.window;
  // A bucket's memory was last used a window or more ago: its next slots
  // are fetched for writing (prefetching never faults, past the end either).
  PrefetchForWrite(pending.events.data() + pending.events.size(), 2 * sizeof(Event));
  PrefetchForWrite(pending.lines.data() + pending.lines.size(), 4 * sizeof(Line));
  bucket.ordinal.push_back(records_read_);
  Line& b = pending.lines.emplace_back();  // at its defaults (no event, no rank)
  b.type = record_.type;
  b.canonical = record_.canonical;
  b.last_field = static_cast<int8_t>(record_.last_field);
  b.text = record_.line.data();
  b.length = static_cast<uint32_t>(record_.line.size());
  if (pending.blocks.empty() || pending.blocks.back().get() != input_.block_address()) HoldBlock(&pending);
  b.level = level;
  if (record_.type == trace::RecordType::kMpi) {
    const trace::MpiRecord& m = record_.mpi;
    b.event = static_cast<int32_t>(pending.events.size());
    // One branch for the three checks of the times (bitwise: no early exits).
    if (!TimeInRange(m.t0) | !TimeInRange(m.t1) | (m.t1 < m.t0)) [[unlikely]] {
      if (!TimeInRange(m.t0) || !TimeInRange(m.t1)) {
        return TimeError("mpi", TimeInRange(m.t0) ? "t1" : "t0", TimeInRange(m.t0) ? m.t1 : m.t0);
      }
      if (report_.ends_before_start++ == 0) {
        report_.first_end_before_start = RankSeq(m.rank, m.seq);
        report_.first_end_before_start_at = {window_index_, m.has_phase() ? m.phase : -1, m.t0, m.rank};
      }
    }
    // Filled in place, every field once: a copy from the stack would load
    // 16 bytes at a time what ToEvent stored field by field, which the
    // store buffer cannot forward (a stall per load).
    const int32_t fn = mpi::FindFunction(m.fn);
    Event& e = pending.events.emplace_back(Event::kUnset);
    if (!ToEvent(m, fn, &pending.ids, &pending.resolved, &e)) return WideFieldError();
    e.line = static_cast<uint32_t>(pending.lines.size() - 1);
    b.rank = e.rank;
    b.time = m.t0;
    b.present = m.present;
    b.time_spans[0] = record_.spans[trace::MpiRecord::k_t0];
    b.time_spans[1] = record_.spans[trace::MpiRecord::k_t1];
    RankState& rank = ranks_[m.rank];
    const bool held_fewest = Delivering(rank) && rank.syncs == fewest_;
    ++rank.seen;
    if (rank.expected >= 0 && rank.seen > rank.expected && !rank.given_up) [[unlikely]] {
      if (report_.beyond_count++ == 0) {
        report_.first_beyond_count = RankSeq(m.rank, m.seq);
        report_.first_beyond_count_at = {window_index_, m.has_phase() ? m.phase : -1, m.t0, m.rank};
      }
    }
    const bool clean_only = boundaries_ == Boundaries::kClean;
    if (clean_only) Account(e, pending.ids, rank);
    if (IsGlobalSync(e, dict_)) {
      b.global_sync = true;
      ++rank.syncs;
      most_ = std::max(most_, rank.syncs);
      if (clean_only) rank.at.push_back({rank.active, rank.sent, rank.received});
    }
    if (held_fewest && (!Delivering(rank) || rank.syncs != fewest_) && --at_fewest_ == 0) recount_ = true;
  } else if (record_.type == trace::RecordType::kSample) {
    if (!TimeInRange(record_.sample.t)) return TimeError("sample", "t", record_.sample.t);
    b.rank = static_cast<int32_t>(record_.sample.rank);
    b.time = record_.sample.t;
    b.present = record_.sample.present;
    b.time_spans[0] = record_.spans[trace::SampleRecord::k_t];
  } else {
    RP_RETURN_IF_ERROR(CheckDictionaryRecord());
    if (record_.type == trace::RecordType::kComm) dict_.comm_ranks[record_.comm.id] = record_.comm.ranks;
  }
  return OkStatus();
}

void WindowReader::Bucket::Clear() {
  window.Clear();
  ordinal.clear();
}

WindowReader::Bucket& WindowReader::AddBuckets(size_t index) {
  while (buckets_.size() <= index) {
    if (spare_.empty()) {
      buckets_.push_back(std::make_unique<Bucket>());
    } else {
      buckets_.push_back(std::move(spare_.back()));
      spare_.pop_back();
    }
  }
  return *buckets_[index];
}

bool WindowReader::Buffered() const {
  return std::any_of(buckets_.begin() + static_cast<ptrdiff_t>(first_), buckets_.end(),
                     [](const auto& b) { return !b->window.lines.empty(); });
}

void WindowReader::DropFront() {
  // Enough spares for the levels ranks are usually apart; more would keep
  // the memory of a pathological stretch for the rest of the run.
  constexpr size_t kMostSpares = 16;
  std::unique_ptr<Bucket> bucket = std::move(buckets_[first_++]);
  if (spare_.size() < kMostSpares) {
    bucket->Clear();
    spare_.push_back(std::move(bucket));
  }
  if (first_ >= 32 && 2 * first_ >= buckets_.size()) {
    buckets_.erase(buckets_.begin(), buckets_.begin() + static_cast<ptrdiff_t>(first_));
    first_ = 0;
  }
}

namespace {

// Appends record i of `from`, with its event and array slices, to `to`
// (whose blocks must hold its line).
template <typename Bucket>
void AppendRecord(const Bucket& from, size_t i, Bucket* to) {
  const Window& source = from.window;
  Window& target = to->window;
  const Line& r = source.lines[i];
  Line& k = target.lines.emplace_back(r);
  to->ordinal.push_back(from.ordinal[i]);
  if (r.event < 0) return;
  k.event = static_cast<int32_t>(target.events.size());
  Event& e = target.events.emplace_back(source.events[r.event]);
  e.line = static_cast<uint32_t>(target.lines.size() - 1);
  // In ToEvent's order: completed, started, resolved.
  auto carry = [](const auto& from, auto& to, uint32_t* begin, uint32_t count) {
    const auto first = from.begin() + *begin;
    *begin = static_cast<uint32_t>(to.size());
    to.insert(to.end(), first, first + count);
  };
  carry(source.ids, target.ids, &e.completed_begin, e.completed_count);
  carry(source.ids, target.ids, &e.started_begin, e.started_count);
  carry(source.resolved, target.resolved, &e.resolved_begin, e.resolved_count);
}

// Drops the lines from `keep` on, with their events and arrays (laid
// out in the order of the lines); the blocks stay.
template <typename Bucket>
void Truncate(Bucket* bucket, size_t keep) {
  Window& w = bucket->window;
  if (keep >= w.lines.size()) return;
  for (size_t i = keep; i < w.lines.size(); ++i) {
    if (w.lines[i].event < 0) continue;
    const Event& first = w.events[w.lines[i].event];
    w.ids.resize(first.completed_begin);
    w.resolved.resize(first.resolved_begin);
    w.events.resize(w.lines[i].event);
    break;
  }
  w.lines.resize(keep);
  bucket->ordinal.resize(keep);
}

// Adds the blocks of `from` to `into`, both in serial order, once each.
void MergeBlocks(const std::vector<std::shared_ptr<const trace::InputBlock>>& from,
                 std::vector<std::shared_ptr<const trace::InputBlock>>* into) {
  std::vector<std::shared_ptr<const trace::InputBlock>> merged;
  merged.reserve(from.size() + into->size());
  auto a = into->begin();
  auto b = from.begin();
  while (a != into->end() || b != from.end()) {
    if (b == from.end() || (a != into->end() && (*a)->serial <= (*b)->serial)) {
      if (b != from.end() && *a == *b) ++b;
      merged.push_back(std::move(*a++));
    } else {
      merged.push_back(*b++);
    }
  }
  into->swap(merged);
}

}  // namespace

void WindowReader::MergeNext() {
  Bucket& into = *buckets_[first_];
  Bucket& from = *buckets_[first_ + 1];
  if (into.window.lines.empty()) {
    std::swap(into, from);
  } else if (!from.window.lines.empty()) {
    // Records of the earlier levels that came after the first of the next
    // level's are merged with them; those before stay where they are.
    const size_t keep = static_cast<size_t>(
        std::upper_bound(into.ordinal.begin(), into.ordinal.end(), from.ordinal.front()) - into.ordinal.begin());
    scratch_.Clear();
    for (size_t i = keep; i < into.window.lines.size(); ++i) AppendRecord(into, i, &scratch_);
    Truncate(&into, keep);
    size_t a = 0, b = 0;
    while (a < scratch_.ordinal.size() || b < from.ordinal.size()) {
      if (b == from.ordinal.size() || (a < scratch_.ordinal.size() && scratch_.ordinal[a] < from.ordinal[b])) {
        AppendRecord(scratch_, a++, &into);
      } else {
        AppendRecord(from, b++, &into);
      }
    }
    MergeBlocks(from.window.blocks, &into.window.blocks);
  }
  // The merged bucket takes the second slot; the first is dropped.
  std::swap(buckets_[first_], buckets_[first_ + 1]);
  DropFront();
}

void WindowReader::MergeAll() {
  if (Live() <= 2) {
    if (Live() == 2) MergeNext();
    return;
  }
  struct At {
    int64_t ordinal;
    uint32_t bucket, index;
  };
  std::vector<At> order;
  std::vector<std::shared_ptr<const trace::InputBlock>> blocks;
  for (size_t b = first_; b < buckets_.size(); ++b) {
    const Bucket& bucket = *buckets_[b];
    for (size_t i = 0; i < bucket.ordinal.size(); ++i) {
      order.push_back({bucket.ordinal[i], static_cast<uint32_t>(b), static_cast<uint32_t>(i)});
    }
    blocks.insert(blocks.end(), bucket.window.blocks.begin(), bucket.window.blocks.end());
  }
  std::sort(order.begin(), order.end(), [](const At& a, const At& b) { return a.ordinal < b.ordinal; });
  std::sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) { return a->serial < b->serial; });
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  auto merged = std::make_unique<Bucket>();
  for (const At& at : order) AppendRecord(*buckets_[at.bucket], at.index, merged.get());
  merged->window.blocks = std::move(blocks);
  while (Live() > 0) DropFront();
  buckets_.push_back(std::move(merged));
}

void WindowReader::Emit(bool ends_with_sync, Window* window) {
  window->index = window_index_++;
  window->ends_with_sync = ends_with_sync;
  for (auto& r : window->by_rank) r.clear();
  if (Live() == 0) {  // (a distributed read: other processes hold its lines)
    window->Clear();
    window->ends_with_sync = ends_with_sync;
    return;
  }
  // The window takes the bucket's vectors; the bucket keeps the window's
  // old ones, emptied, for reuse.
  Window& taken = buckets_[first_]->window;
  std::swap(window->lines, taken.lines);
  std::swap(window->blocks, taken.blocks);
  std::swap(window->events, taken.events);
  std::swap(window->ids, taken.ids);
  std::swap(window->resolved, taken.resolved);
  DropFront();
  // Each rank's events in seq order: usually the input order already,
  // which the pass that lists them checks (a second pass, by rank, would
  // read the events at random).
  std::vector<int64_t>& last_seq = last_seq_;
  std::vector<bool>& unsorted = unsorted_;
  last_seq.assign(window->by_rank.size(), INT64_MIN);
  unsorted.assign(window->by_rank.size(), false);
  for (size_t i = 0; i < window->events.size(); ++i) {
    const Event& e = window->events[i];
    const size_t rank = static_cast<size_t>(e.rank);
    if (rank >= window->by_rank.size()) {
      window->by_rank.resize(rank + 1);
      last_seq.resize(rank + 1, INT64_MIN);
      unsorted.resize(rank + 1, false);
    }
    window->by_rank[rank].push_back(static_cast<uint32_t>(i));
    if (e.seq <= last_seq[rank]) [[unlikely]] {
      if (e.seq == last_seq[rank]) CountDuplicateSeq(e);
      else unsorted[rank] = true;
    }
    last_seq[rank] = e.seq;
  }
  for (size_t rank = 0; rank < window->by_rank.size(); ++rank) {
    if (!unsorted[rank]) continue;
    std::vector<uint32_t>& indices = window->by_rank[rank];
    std::stable_sort(indices.begin(), indices.end(),
                     [&](uint32_t a, uint32_t b) { return window->events[a].seq < window->events[b].seq; });
    // The pass above saw only the neighbours in input order.
    for (size_t k = 1; k < indices.size(); ++k) {
      const Event& e = window->events[indices[k]];
      if (e.seq == window->events[indices[k - 1]].seq) CountDuplicateSeq(e);
    }
  }
  CarryPersistent(window);
  if (progress_) progress_(records_read_);
}

void WindowReader::CarryPersistent(Window* window) {
  window->inherited.clear();
  for (size_t rank = 0; rank < window->by_rank.size(); ++rank) {
    auto key = [rank](int64_t id) { return static_cast<uint64_t>(rank) << 32 | static_cast<uint32_t>(id); };
    auto started = [&](int64_t id) {
      auto it = persistent_.find(key(id));
      if (it == persistent_.end() || it->second.window == window->index || it->second.carried == window->index) return;
      it->second.carried = window->index;
      window->inherited.push_back(it->second.def);
    };
    for (uint32_t index : window->by_rank[rank]) {
      const Event& e = window->events[index];
      const mpi::Function* f = e.function();
      if (f == nullptr || (e.req == kNoId && f->category != Category::kStartall)) continue;
      switch (f->category) {
        case Category::kSendInit:
        case Category::kRecvInit:
          persistent_[key(e.req)] = PersistentDef{
              {static_cast<int64_t>(rank), e.req, f->category == Category::kSendInit, e.comm, e.peer, e.tag, e.bytes},
              window->index, -1};
          break;
        case Category::kRequestFree:
          persistent_.erase(key(e.req));
          break;
        case Category::kStart:
          started(e.req);
          break;
        case Category::kStartall:
          for (uint32_t i = 0; i < e.started_count; ++i) started(window->ids[e.started_begin + i]);
          break;
        default:
          break;
      }
    }
  }
}

void WindowReader::CountDuplicateSeq(const Event& e) {
  if (report_.duplicate_seqs++ == 0) {
    report_.first_duplicate_seq = RankSeq(e.rank, e.seq);
    report_.first_duplicate_seq_at = {window_index_, e.phase == kNone ? -1 : e.phase, e.t0, e.rank};
  }
}

void WindowReader::GiveUpSilentRanks() {
  // Every rank is looked at: not more often than once per rank read.
  next_hold_check_ = records_read_ + std::max<int64_t>({hold_limit_ / 8, static_cast<int64_t>(ranks_.size()), 1});
  if (most_ < next_boundary_ || Reached() >= next_boundary_) return;  // no boundary is held
  for (size_t i = 0; i < ranks_.size(); ++i) {
    RankState& r = ranks_[i];
    // A rank whose rank record counts its events will deliver them: it is
    // late (clocks far apart), not lost, and waiting for it is right.
    if (r.expected >= 0 || r.syncs >= next_boundary_ || records_read_ - r.last_read < hold_limit_) continue;
    r.given_up = true;
    r.expected = r.seen;  // delivered all it will: Clean() takes what it left as final
    recount_ = true;
    if (report_.given_up++ == 0) {
      report_.first_given_up = static_cast<int64_t>(i);
      report_.first_given_up_at = {window_index_, 0, 0, static_cast<int64_t>(i)};
    }
  }
}

std::vector<std::string> InputReport::Warnings(int64_t hold_limit) const {
  std::vector<std::string> out;
  if (ends_before_start > 0) {
    out.push_back(std::to_string(ends_before_start) + " mpi record(s) end before they start (t1 < t0; first: " +
                  first_end_before_start + ")");
  }
  if (duplicate_seqs > 0) {
    out.push_back(std::to_string(duplicate_seqs) + " mpi record(s) repeat the seq of another of their rank (first: " +
                  first_duplicate_seq + "): the stream holds a rank twice, or is corrupt");
  }
  if (given_up > 0) {
    out.push_back(std::to_string(given_up) + " rank(s) (first: rank " + std::to_string(first_given_up) +
                  ") sent no record for " + std::to_string(hold_limit) +
                  " records while the others went past a global synchronization they had not reached: taken as "
                  "finished so that windows could end (their records are missing, or come much later in a trace "
                  "not in time order; --hold raises the limit)");
  }
  if (beyond_count > 0) {
    out.push_back(std::to_string(beyond_count) + " mpi record(s) (first: " + first_beyond_count +
                  ") come after their rank delivered the events its rank record counts: windows did not wait for "
                  "them, so their messages and collectives may find no partner");
  }
  if (unclean_cuts > 0) {
    out.push_back(std::to_string(unclean_cuts) + " window(s) (first: at global synchronization " +
                  std::to_string(first_unclean_cut) + ") ended with requests active or messages in flight, after " +
                  std::to_string(hold_limit) + " records without a clean synchronization (--hold): messages across "
                  "those ends find no partner");
  }
  if (late_ranks > 0) {
    out.push_back(std::to_string(late_ranks) + " rank(s) (first: rank " + std::to_string(first_late_rank) +
                  ") first appeared after windows without them had ended: no header \"ranks\", rank or comm "
                  "record named them");
  }
  if (late_records > 0) {
    out.push_back(std::to_string(late_records) +
                  " record(s) of those ranks came after windows without them had ended: they went into the window "
                  "being read, so their messages and collectives may find no partner");
  }
  return out;
}

Expected<bool> WindowReader::Next(Window* window) {
  if (judge_ != nullptr) return NextJudged(window);
  for (;;) {
    if (records_read_ >= next_hold_check_) GiveUpSilentRanks();
    // A boundary every rank has reached: clean ones end the window.
    while (next_boundary_ <= Reached()) {
      const int64_t k = next_boundary_++;
      const bool clean = Clean(k);
      // Synchronization k is judged: forget what each rank had at it.
      for (RankState& r : ranks_) {
        while (r.pending() > 0 && r.at_base < k) r.PopPending();
      }
      // Levels up to k - 1 are buckets_[first_]: a window, or, when k is not
      // clean, part of one with level k.
      // A window that cannot end clean (a request that is never completed,
      // receives posted before each synchronization for messages sent
      // after it) would grow to the whole run: once it holds the hold
      // limit's records it ends at the next synchronization anyway, and
      // messages across that boundary find no partner (reported).
      const bool forced = !clean && Live() > 0 &&
                          static_cast<int64_t>(buckets_[first_]->window.lines.size()) >= hold_limit_;
      if (clean || forced) {
        if (forced && report_.unclean_cuts++ == 0) report_.first_unclean_cut = k;
        Emit(true, window);
        if (!window->lines.empty()) return true;
      } else if (Live() > 1) {
        MergeNext();
      }
    }
    if (input_done_ && !have_first_) {
      if (!Buffered()) return false;
      MergeAll();
      Emit(false, window);
      return true;
    }
    RP_RETURN_IF_ERROR(ReadRecord());
  }
}

// Next() of a distributed read: the same steps, each boundary decided with
// the other processes (BoundaryJudge).
Expected<bool> WindowReader::NextJudged(Window* window) {
  for (;;) {
    if (finished_) return false;
    while (!judged_out_ && (next_boundary_ <= Reached() || input_done_)) {
      bool emitted = false;
      RP_ASSIGN_OR_RETURN(bool judged, JudgeNext(window, &emitted));
      if (!judged) judged_out_ = true;
      if (emitted) return true;
    }
    if (input_done_ && !have_first_) {
      // The last window: every process's lines left, if any has some.
      SyncParts mine;
      for (size_t i = first_; i < buckets_.size(); ++i) mine.lines += static_cast<int64_t>(buckets_[i]->window.lines.size());
      RP_ASSIGN_OR_RETURN(SyncParts all, judge_->Judge(mine));
      finished_ = true;
      if (all.lines == 0) return false;
      MergeAll();
      Emit(false, window);
      return true;
    }
    RP_RETURN_IF_ERROR(ReadRecord());
  }
}

Status WindowReader::ReadRecord() {
  if (have_first_) {  // the first event, read by Start()
    have_first_ = false;
    return BufferRecord();
  }
  RP_ASSIGN_OR_RETURN(bool more, input_.Next(&record_));
  if (!more) {
    input_done_ = true;
    return OkStatus();
  }
  ++records_read_;
  if (record_.type == trace::RecordType::kHeader) return OkStatus();  // later inputs' headers: InputSet drops them
  return BufferRecord();
}

Expected<bool> WindowReader::JudgeNext(Window* window, bool* emitted) {
  const int64_t k = next_boundary_;
  SyncParts mine;
  Reached();  // fewest_ and most_ up to date
  mine.fewest = fewest_;
  mine.most = most_;
  if (boundaries_ == Boundaries::kClean) CleanParts(k, &mine);
  mine.lines = Live() > 0 ? static_cast<int64_t>(buckets_[first_]->window.lines.size()) : 0;
  RP_ASSIGN_OR_RETURN(SyncParts all, judge_->Judge(mine));
  // As the one-process reader: boundary k is there when every rank still
  // delivering has reached it and some rank has.
  if (std::min(all.fewest, all.most) < k) return false;
  ++next_boundary_;
  const bool clean = boundaries_ == Boundaries::kEverySync || (all.active == 0 && all.sent == all.received);
  for (RankState& r : ranks_) {
    while (r.pending() > 0 && r.at_base < k) r.PopPending();
  }
  const bool forced = !clean && all.lines >= hold_limit_;
  if (clean || forced) {
    if (forced && report_.unclean_cuts++ == 0) report_.first_unclean_cut = k;
    Emit(true, window);
    *emitted = all.lines > 0;
  } else if (Live() > 1) {
    MergeNext();
  }
  return true;
}

int64_t ApplicationStart(const Window& w) {
  int64_t init_exit = INT64_MAX, entry = INT64_MAX;
  for (const Event& e : w.events) {
    entry = std::min(entry, e.t0);
    if (e.category() == mpi::Category::kInit) init_exit = std::min(init_exit, e.t1);
  }
  return init_exit != INT64_MAX ? init_exit : entry;
}

}  // namespace rp::window
