// The diagnosis part of a report, from rp-diagnose's records: the findings,
// most severe first, each as a few sentences (where the time is lost, its
// causes, the numbers, the remedy), then the POP efficiencies of the run
// and of the phase clusters that took the most time side by side.
#ifndef RP_LIB_REPORT_DIAGNOSE_SECTION_H_
#define RP_LIB_REPORT_DIAGNOSE_SECTION_H_

#include <string>
#include <utility>
#include <vector>

#include "lib/report/format.h"
#include "lib/trace/record.h"

namespace rp::report {

// A finding's category as words: "load_imbalance" -> "load imbalance".
std::string CategoryWords(const std::string& category);

// " (file.c:12)" after the MPI call of a finding (or finding_change) whose
// site has a file; "" without one.
template <typename R>
std::string FileLine(const R& r) {
  if (!r.has_file()) return "";
  return " (" + std::string(BaseName(r.file)) + (r.has_line() ? ":" + std::to_string(r.line) : "") + ")";
}

// The POP efficiency table: a row per metric, a column per record, headed
// by its label.
Table EfficiencyTable(const std::vector<std::pair<std::string, const trace::EfficiencyRecord*>>& columns);

class DiagnoseSection {
 public:
  void Add(const trace::Record& record);
  bool empty() const { return efficiencies_.empty() && findings_.empty(); }
  void Text(std::string* out) const;
  void Markdown(std::string* out) const;
  // The findings, efficiencies, time by rank and the timeline of a
  // representative phase, with SVG pictures (diagnose_html.cc).
  void Html(std::string* out) const;

 private:
  std::vector<std::string> FindingLines(const trace::FindingRecord& f) const;
  Table EfficiencyRows() const;

  std::vector<trace::EfficiencyRecord> efficiencies_;  // the run's first
  std::vector<trace::FindingRecord> findings_;         // most severe first
  std::vector<trace::TimelineRecord> timeline_;        // lanes, then the path
};

}  // namespace rp::report

#endif  // RP_LIB_REPORT_DIAGNOSE_SECTION_H_
