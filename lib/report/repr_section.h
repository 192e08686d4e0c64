// The representative-paths part of a report, from rp-repr's records: each
// phase cluster's kept paths (their mean cost per phase and share of the
// phase's time, by percentile) and the run's differences between paths by
// function (path_diff), the code that makes one path costlier than another.
#ifndef RP_LIB_REPORT_REPR_SECTION_H_
#define RP_LIB_REPORT_REPR_SECTION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lib/trace/record.h"

namespace rp::report {

class ReprSection {
 public:
  void Add(const trace::Record& record);
  bool empty() const { return clusters_.empty() && diffs_.empty(); }
  void Text(std::string* out) const;
  void Markdown(std::string* out) const;

 private:
  struct Slot {
    double percentile = 0;
    int64_t phases = 0, cost = 0;
    double share = 0;
  };
  struct Diff {
    double a, b;
    int64_t total = 0;
    double share = 0;
    std::vector<trace::PathDiffRecord> functions;  // largest first
  };
  std::vector<std::string> ClusterRows(bool markdown) const;

  std::map<int64_t, std::vector<Slot>> clusters_;  // -1: the whole run as one phase
  std::map<int64_t, int64_t> phases_;              // per cluster
  std::vector<Diff> diffs_;  // the run's
};

}  // namespace rp::report

#endif  // RP_LIB_REPORT_REPR_SECTION_H_
