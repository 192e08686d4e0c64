// rp-diagnose --compare as people read it: each finding of two runs with
// its status (resolved, improved, unchanged, regressed, new) and both
// severities, then the two runs' efficiencies side by side.
#ifndef RP_LIB_REPORT_COMPARE_SECTION_H_
#define RP_LIB_REPORT_COMPARE_SECTION_H_

#include <string>
#include <vector>

#include "lib/trace/record.h"

namespace rp::report {

class CompareSection {
 public:
  void Add(const trace::Record& record);
  bool empty() const { return changes_.empty() && a_.empty() && b_.empty(); }
  void Text(std::string* out) const;
  void Markdown(std::string* out) const;

 private:
  std::vector<std::vector<std::string>> ChangeRows() const;
  std::vector<std::vector<std::string>> EfficiencyRows() const;

  std::vector<trace::FindingChangeRecord> changes_;
  std::vector<trace::EfficiencyRecord> a_, b_;
};

}  // namespace rp::report

#endif  // RP_LIB_REPORT_COMPARE_SECTION_H_
