// Stream-level checks behind `rp-cat --validate`: what a single line cannot
// tell (the reader already checked JSON, types and required fields):
// ranks within the header's rank count, per-rank sequence numbers and local
// times in order, call sites and communicators defined before use, t1 >= t0,
// unique dictionary ids, communicator sizes matching their member lists.
#ifndef RP_LIB_TRACE_VALIDATOR_H_
#define RP_LIB_TRACE_VALIDATOR_H_

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "lib/trace/record.h"

namespace rp::trace {

class Validator {
 public:
  // Checks `record`, positioned at `where` ("file:line") for messages.
  void Check(const Record& record, const std::string& where);
  // Checks that need the whole stream (missing rank records).
  void Finish();

  int64_t problem_count() const { return problem_count_; }
  // The first problems found (at most kKeptProblems), with positions.
  const std::vector<std::string>& problems() const { return problems_; }
  static constexpr size_t kKeptProblems = 20;

 private:
  struct RankState {
    int64_t last_seq = -1;
    int64_t last_t0 = INT64_MIN;
    bool has_rank_record = false;
  };
  void Problem(const std::string& where, const std::string& message);
  // The state of `rank`, or null (with a problem reported) when it is out of range.
  RankState* Rank(int64_t rank, const std::string& where, std::string_view record_type);
  void CheckSites(const std::vector<int64_t>& ids, const std::string& where);

  int64_t ranks_ = -1;  // from the header, -1 if unknown
  std::vector<RankState> rank_state_;
  std::unordered_set<int64_t> sites_, comms_, phases_;
  int64_t problem_count_ = 0;
  std::vector<std::string> problems_;
};

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_VALIDATOR_H_
