// The critical-path part of a report, from rp-cpath's run-wide records:
// cp_summary, cp_profile (by function and by site), cp_zeroing and
// cp_imbalance (program and processes). Per-phase records, lines, calling
// contexts and path segments are not shown.
#ifndef RP_LIB_REPORT_CPATH_SECTION_H_
#define RP_LIB_REPORT_CPATH_SECTION_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/trace/record.h"

namespace rp::report {

class CriticalPathSection {
 public:
  // Keeps the record if this section shows it.
  void Add(const trace::Record& record);
  bool empty() const { return !summary_; }
  void Text(std::string* out) const;
  void Markdown(std::string* out) const;

 private:
  struct View;
  View Prepare() const;
  // What the functions table shows, and how its computation was named.
  static std::string FunctionsTitle(const View& v);
  // "main halo.c:41", from a site's cp_profile record.
  std::string Where(int64_t site) const;

  std::optional<trace::CpSummaryRecord> summary_;
  std::vector<trace::CpProfileRecord> sites_;  // in the order written: by CP time
  std::unordered_map<int64_t, size_t> site_index_;
  std::vector<trace::CpProfileRecord> functions_;  // by CP time
  std::vector<trace::CpZeroingRecord> zeroings_;  // largest reduction first
  std::optional<trace::CpImbalanceRecord> program_;
  std::vector<trace::CpImbalanceRecord> processes_;
};

}  // namespace rp::report

#endif  // RP_LIB_REPORT_CPATH_SECTION_H_
