// A short text summary of a trace (rp-cat --summary): the run's span, and
// MPI time per function and per rank (an mpiP-style flat profile). One pass,
// memory proportional to the numbers of functions and ranks.
#ifndef RP_LIB_CAT_SUMMARY_H_
#define RP_LIB_CAT_SUMMARY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lib/trace/record.h"

namespace rp::cat {

class Summary {
 public:
  void Add(const trace::Record& record);
  std::string Text() const;

 private:
  struct Totals {
    int64_t calls = 0;
    int64_t ns = 0;
    int64_t bytes = 0;
  };
  int64_t ranks_ = 0;
  int64_t first_ = INT64_MAX, last_ = INT64_MIN;
  int64_t samples_ = 0;
  std::map<std::string, Totals> by_function_;
  std::vector<Totals> by_rank_;
  std::vector<std::pair<int64_t, int64_t>> rank_span_;  // first t0, last t1
};

}  // namespace rp::cat

#endif  // RP_LIB_CAT_SUMMARY_H_
