#include "lib/trace/validator.h"

namespace rp::trace {
namespace {
constexpr int64_t kMaxRanks = int64_t{1} << 24;
constexpr int64_t kProcNull = -2;
}  // namespace

void Validator::Problem(const std::string& where, const std::string& message) {
  if (problems_.size() < kKeptProblems) problems_.push_back(where + ": " + message);
  ++problem_count_;
}

Validator::RankState* Validator::Rank(int64_t rank, const std::string& where,
                                      std::string_view record_type) {
  const int64_t limit = ranks_ > 0 ? ranks_ : kMaxRanks;
  if (rank < 0 || rank >= limit) {
    Problem(where, std::string(record_type) + " record has rank " + std::to_string(rank) +
                       (ranks_ > 0 ? ", outside 0.." + std::to_string(ranks_ - 1) +
                                         " (header.ranks = " + std::to_string(ranks_) + ")"
                                   : ", out of range"));
    return nullptr;
  }
  if (static_cast<size_t>(rank) >= rank_state_.size()) rank_state_.resize(rank + 1);
  return &rank_state_[rank];
}

void Validator::CheckSites(const std::vector<int64_t>& ids, const std::string& where) {
  for (int64_t id : ids) {
    if (!sites_.count(id)) {
      Problem(where, "site " + std::to_string(id) + " is used before its site record");
      return;
    }
  }
}

void Validator::Check(const Record& record, const std::string& where) {
  switch (record.type) {
    case RecordType::kHeader: {
      const HeaderRecord& h = record.header;
      if (h.has_ranks()) {
        if (h.ranks < 1 || h.ranks > kMaxRanks) {
          Problem(where, "header.ranks = " + std::to_string(h.ranks) + " is not a rank count");
        } else if (ranks_ < 0) {
          ranks_ = h.ranks;
        }
      }
      if (h.has_clock() && h.clock != "local" && h.clock != "global") {
        Problem(where, "header.clock is \"" + h.clock + "\", expected \"local\" or \"global\"");
      }
      return;
    }
    case RecordType::kRank: {
      RankState* state = Rank(record.rank.rank, where, "rank");
      if (state == nullptr) return;
      if (state->has_rank_record) {
        Problem(where, "second rank record for rank " + std::to_string(record.rank.rank));
      }
      state->has_rank_record = true;
      return;
    }
    case RecordType::kComm: {
      const CommRecord& c = record.comm;
      if (!comms_.insert(c.id).second) {
        Problem(where, "communicator id " + std::to_string(c.id) + " defined twice");
      }
      if (c.size != static_cast<int64_t>(c.ranks.size())) {
        Problem(where, "comm " + std::to_string(c.id) + " has size " + std::to_string(c.size) +
                           " but lists " + std::to_string(c.ranks.size()) + " ranks");
      }
      std::unordered_set<int64_t> members;
      for (int64_t r : c.ranks) {
        if (!Rank(r, where, "comm")) return;
        if (!members.insert(r).second) {
          Problem(where, "comm " + std::to_string(c.id) + " lists rank " + std::to_string(r) +
                             " twice");
          return;
        }
      }
      return;
    }
    case RecordType::kSite:
      if (!sites_.insert(record.site.id).second) {
        Problem(where, "site id " + std::to_string(record.site.id) + " defined twice");
      }
      return;
    case RecordType::kMpi: {
      const MpiRecord& m = record.mpi;
      RankState* state = Rank(m.rank, where, "mpi");
      if (state == nullptr) return;
      const std::string id = " (rank " + std::to_string(m.rank) + ", seq " + std::to_string(m.seq) + ")";
      if (m.t1 < m.t0) Problem(where, "t1 < t0" + id);
      if (m.seq <= state->last_seq) {
        Problem(where, "seq does not increase" + id + ": previous was " +
                           std::to_string(state->last_seq));
      }
      if (m.t0 < state->last_t0) {
        Problem(where, "local time goes backwards" + id + ": t0 " + std::to_string(m.t0) +
                           " < previous t0 " + std::to_string(state->last_t0));
      }
      state->last_seq = m.seq;
      state->last_t0 = m.t0;
      if (m.has_site()) CheckSites({m.site}, where);
      if (m.has_comm() && !comms_.count(m.comm)) {
        Problem(where, "comm " + std::to_string(m.comm) + " is used before its comm record" + id);
      }
      const int64_t limit = ranks_ > 0 ? ranks_ : kMaxRanks;
      for (int64_t peer : {m.has_peer() ? m.peer : 0, m.has_rpeer() ? m.rpeer : 0}) {
        if (peer < kProcNull || peer >= limit) {
          Problem(where, "peer " + std::to_string(peer) + " is not a rank" + id);
        }
      }
      return;
    }
    case RecordType::kSample: {
      if (Rank(record.sample.rank, where, "sample") == nullptr) return;
      CheckSites(record.sample.stack, where);
      return;
    }
    case RecordType::kClock:
      Rank(record.clock.rank, where, "clock");
      return;
    case RecordType::kPhase: {
      const PhaseRecord& p = record.phase;
      if (!phases_.insert(p.id).second) {
        Problem(where, "phase id " + std::to_string(p.id) + " defined twice");
      }
      if (p.t1 < p.t0) Problem(where, "phase " + std::to_string(p.id) + " has t1 < t0");
      return;
    }
    case RecordType::kCpSegment: {
      const CpSegmentRecord& c = record.cp_segment;
      if (Rank(c.rank, where, "cp_segment") == nullptr) return;
      if (c.t1 < c.t0) Problem(where, "cp_segment has t1 < t0 (rank " + std::to_string(c.rank) + ")");
      if (c.length < 0) Problem(where, "cp_segment has a negative length (rank " + std::to_string(c.rank) + ")");
      if (c.has_site()) CheckSites({c.site}, where);
      return;
    }
    // rp-cpath's reports: the schema's required fields are all they promise.
    case RecordType::kCpSummary:
    case RecordType::kCpProfile:
    case RecordType::kCpZeroing:
    case RecordType::kCpTop:
    case RecordType::kPath:
    case RecordType::kPathInterval:
    case RecordType::kPathProfile:
    case RecordType::kPathDiff:
    case RecordType::kCpImbalance:
    case RecordType::kEfficiency:
    case RecordType::kFinding:
    case RecordType::kFindingChange:
    case RecordType::kTimeline:
    case RecordType::kLink:
    case RecordType::kNet:
    case RecordType::kHopPath:
    case RecordType::kHopSummary:
    case RecordType::kPart:  // InputSet merges a split trace's parts: none reach here
    case RecordType::kUnknown:
      return;
  }
}

void Validator::Finish() {
  bool any_rank_record = false;
  for (const RankState& s : rank_state_) any_rank_record |= s.has_rank_record;
  if (!any_rank_record || ranks_ <= 0) return;
  rank_state_.resize(ranks_);
  int64_t missing = 0;
  int64_t first = -1;
  for (int64_t r = 0; r < ranks_; ++r) {
    if (!rank_state_[r].has_rank_record) {
      if (first < 0) first = r;
      ++missing;
    }
  }
  if (missing > 0) {
    Problem("<end>", std::to_string(missing) + " of " + std::to_string(ranks_) +
                         " ranks have no rank record (first: rank " + std::to_string(first) + ")");
  }
}

}  // namespace rp::trace
