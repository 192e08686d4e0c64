// The network part of a report, from rp-hops' records: where marked
// packets spent their time and where they were lost (the dominant hop, each
// device's and link's delay percentiles, the drop sites, each sender's
// latency), and in HTML the path-synchronous monitoring paper's two
// pictures (§4, the incast case study): a heat map of end-to-end latency by
// send time and sender, and each sender's mean latency stacked by device.
//
// hop_path records are not kept: each is folded into a heat map cell, so
// memory is bounded by senders x columns on any number of packets.
#ifndef RP_LIB_REPORT_HOPS_SECTION_H_
#define RP_LIB_REPORT_HOPS_SECTION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/trace/record.h"

namespace rp::report {

// Send time x sender cells of latency. Columns double in width when the
// send times span more than kColumns of them, so a log of any length fits.
class LatencyGrid {
 public:
  static constexpr int64_t kColumns = 120;
  struct Cell {
    int64_t paths = 0, complete = 0, latency = 0, most = 0, drops = 0;
  };
  // A path sent at `t` (ns) by `sender`; latency < 0 when it did not
  // complete; dropped when it was lost in the network.
  void Add(const std::string& sender, int64_t t, int64_t latency, bool dropped);
  bool empty() const { return cells_.empty(); }
  int64_t origin() const { return origin_; }
  int64_t width() const { return width_; }
  // The first and last column used.
  std::pair<int64_t, int64_t> Columns() const;
  // sender -> column -> cell.
  const std::map<std::string, std::map<int64_t, Cell>>& cells() const { return cells_; }

 private:
  void Widen();
  std::map<std::string, std::map<int64_t, Cell>> cells_;
  int64_t origin_ = 0, width_ = 1000;  // ns
  int64_t first_ = 0, last_ = 0;       // columns in use
};

class HopsSection {
 public:
  void Add(const trace::Record& record);
  bool empty() const { return !run_; }
  void Text(std::string* out) const;
  void Markdown(std::string* out) const;
  void Html(std::string* out) const;

 private:
  struct View;
  View Prepare() const;
  std::string HeatMap() const;
  std::string StackedBars() const;

  std::optional<trace::HopSummaryRecord> run_;
  std::vector<trace::HopSummaryRecord> devices_, links_, senders_;
  LatencyGrid grid_;
};

// "h2" < "h10": names compared with their digit runs as numbers.
bool NaturalLess(const std::string& a, const std::string& b);

}  // namespace rp::report

#endif  // RP_LIB_REPORT_HOPS_SECTION_H_
