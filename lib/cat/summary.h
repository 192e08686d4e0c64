// A short text summary of a trace (rp-cat --summary): the application's
// time, and MPI time per function and per rank in it (an mpiP-style flat
// profile), with MPI_Init, MPI_Finalize and the collector's own work
// reported apart. One pass, memory proportional to the numbers of
// functions and ranks.
//
// The application's time, as mpiP counts it, runs from MPI_Init's return
// to the call of MPI_Finalize, on each rank and, for the run, from the
// first such return to the last such call. A trace without them (not
// rp-record's) spans its calls.
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
  // Where a rank's application time lies, and what bounds it.
  struct RankSpan {
    int64_t first = INT64_MAX, last = INT64_MIN;  // of its calls
    int64_t start = INT64_MIN, end = INT64_MIN;   // MPI_Init's return, MPI_Finalize's call
    int64_t init = 0, finalize = 0;               // their MPI part
    int64_t setup = 0;                            // the collector's own work in them
    int64_t begin() const { return start != INT64_MIN ? start : first; }
    int64_t finish() const { return end != INT64_MIN ? end : last; }
  };
  Totals& RankTotals(int64_t rank);

  int64_t ranks_ = 0;
  int64_t calls_ = 0;
  int64_t samples_ = 0;
  int64_t rp_calls_ = 0;     // the collector's own work in the application's calls
  int64_t rp_sampling_ = 0;  // and outside calls (rank records)
  std::map<std::string, Totals> by_function_;
  std::vector<Totals> by_rank_;
  std::vector<RankSpan> spans_;
};

}  // namespace rp::cat

#endif  // RP_LIB_CAT_SUMMARY_H_
