#include "lib/report/hops_section.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "lib/report/format.h"
#include "lib/report/svg.h"

namespace rp::report {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }

std::string Count(int64_t n) { return std::to_string(n); }

std::string OrDash(bool has, int64_t ns) { return has ? Duration(ns) : "-"; }

std::vector<std::string> Quantiles(const trace::HopSummaryRecord& r) {
  return {OrDash(r.has_p50(), r.p50), OrDash(r.has_p90(), r.p90), OrDash(r.has_p99(), r.p99),
          OrDash(r.has_max(), r.max)};
}

std::string LinkName(const trace::HopSummaryRecord& r) {
  return r.device + ":" + std::to_string(r.has_port() ? r.port : 0) + " -> " + (r.has_peer() ? r.peer : "?");
}

// Viridis at five stops, interpolated: dark is fast, yellow is slow.
std::string Viridis(double x) {
  static constexpr std::array<std::array<double, 3>, 5> kStops = {
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  x = std::clamp(x, 0.0, 1.0) * 4;
  const size_t i = std::min<size_t>(static_cast<size_t>(x), 3);
  const double f = x - static_cast<double>(i);
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(kStops[i][0] * (1 - f) + kStops[i + 1][0] * f)),
                static_cast<int>(std::lround(kStops[i][1] * (1 - f) + kStops[i + 1][1] * f)),
                static_cast<int>(std::lround(kStops[i][2] * (1 - f) + kStops[i + 1][2] * f)));
  return buf;
}

// Tableau 10 less red (drops) and grey (the other devices).
constexpr std::array<const char*, 8> kDeviceColours = {"#4e79a7", "#f28e2b", "#59a14f", "#edc948",
                                                        "#b07aa1", "#76b7b2", "#ff9da7", "#9c755f"};
constexpr const char* kOtherColour = "#bab0ac";

}  // namespace

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      // Without leading zeros, the longer run is the larger number.
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c != 0) return c < 0;
      i = ie, j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  if ((i == a.size()) != (j == b.size())) return i == a.size();
  return a < b;  // equal but for leading zeros
}

// ------------------------------------------------------------- LatencyGrid ---

void LatencyGrid::Add(const std::string& sender, int64_t t, int64_t latency, bool dropped) {
  if (cells_.empty()) origin_ = t;
  int64_t column = FloorDiv(t - origin_, width_);
  if (cells_.empty()) first_ = last_ = column;
  while (std::max(last_, column) - std::min(first_, column) >= kColumns) {
    Widen();
    column = FloorDiv(t - origin_, width_);
  }
  first_ = std::min(first_, column);
  last_ = std::max(last_, column);
  Cell& c = cells_[sender][column];
  ++c.paths;
  if (latency >= 0) {
    ++c.complete;
    c.latency += latency;
    c.most = std::max(c.most, latency);
  }
  if (dropped) ++c.drops;
}

void LatencyGrid::Widen() {
  width_ *= 2;
  for (auto& [sender, row] : cells_) {
    std::map<int64_t, Cell> wider;
    for (const auto& [column, c] : row) {
      Cell& w = wider[FloorDiv(column, 2)];
      w.paths += c.paths;
      w.complete += c.complete;
      w.latency += c.latency;
      w.most = std::max(w.most, c.most);
      w.drops += c.drops;
    }
    row = std::move(wider);
  }
  first_ = FloorDiv(first_, 2);
  last_ = FloorDiv(last_, 2);
}

std::pair<int64_t, int64_t> LatencyGrid::Columns() const { return {first_, last_}; }

// ------------------------------------------------------------- HopsSection ---

void HopsSection::Add(const trace::Record& record) {
  if (record.type == trace::RecordType::kHopPath) {
    const trace::HopPathRecord& p = record.hop_path;
    int64_t sent = -1;
    for (size_t i = 0; i < p.arrive.size() && sent < 0; ++i) {
      sent = p.arrive[i] >= 0 ? p.arrive[i] : (i < p.depart.size() ? p.depart[i] : -1);
    }
    if (sent < 0) return;
    const bool complete = p.status == "complete";
    grid_.Add(p.src, sent, complete && p.has_latency() ? p.latency : -1, p.status == "dropped");
    return;
  }
  if (record.type != trace::RecordType::kHopSummary) return;
  const trace::HopSummaryRecord& r = record.hop_summary;
  if (r.kind == "run") run_ = r;
  else if (r.kind == "device") devices_.push_back(r);
  else if (r.kind == "link") links_.push_back(r);
  else if (r.kind == "sender") senders_.push_back(r);
}

struct HopsSection::View {
  std::vector<std::string> lines;  // the summary sentences
  Table devices, links, senders;
};

HopsSection::View HopsSection::Prepare() const {
  View v;
  const trace::HopSummaryRecord& run = *run_;
  const int64_t complete = run.has_complete() ? run.complete : 0;
  v.lines.push_back("network: " + Count(run.packets) + " marked packets from " + Count(senders_.size()) +
                    " senders; " + Count(complete) + " complete, " + Count(run.has_drops() ? run.drops : 0) +
                    " dropped, " + Count(run.has_gaps() ? run.gaps : 0) + " with telemetry missing, " +
                    Count(run.has_loops() ? run.loops : 0) + " in a loop");
  if (run.has_p50()) {
    v.lines.push_back("end-to-end latency of the complete packets: p50 " + Duration(run.p50) + ", p90 " +
                      Duration(run.p90) + ", p99 " + Duration(run.p99) + ", max " + Duration(run.max));
  }
  // The dominant hop: the device or link holding the most of the complete
  // packets' latency.
  const trace::HopSummaryRecord* top = nullptr;
  for (const auto* list : {&devices_, &links_}) {
    for (const trace::HopSummaryRecord& r : *list) {
      if (r.has_share() && r.share > 0 && (top == nullptr || r.share > top->share)) top = &r;
    }
  }
  if (top != nullptr) {
    const bool device = top->kind == "device";
    v.lines.push_back("dominant hop: " + std::string(device ? "device " + top->device : "link " + LinkName(*top)) +
                      " holds " + Trim(Percent(top->share)) + " of the complete packets' latency (" +
                      (device ? "inside it" : "on it") + ": p50 " + Duration(top->p50) + ", p99 " +
                      Duration(top->p99) + ")");
  }
  std::vector<const trace::HopSummaryRecord*> drops;
  for (const trace::HopSummaryRecord& r : devices_) {
    if (r.has_drops() && r.drops > 0) drops.push_back(&r);
  }
  std::stable_sort(drops.begin(), drops.end(), [](const auto* a, const auto* b) { return a->drops > b->drops; });
  if (!drops.empty()) {
    std::string s = "drop sites:";
    constexpr size_t kSites = 5;
    for (size_t i = 0; i < drops.size() && i < kSites; ++i) {
      const auto* r = drops[i];
      s += std::string(i ? "," : "") + " " + r->device + " " + Count(r->drops) + " (" +
           Trim(Percent(static_cast<double>(r->drops) / static_cast<double>(std::max<int64_t>(r->packets, 1)))) +
           " of the packets reaching it)";
    }
    if (drops.size() > kSites) s += ", and " + Count(drops.size() - kSites) + " more devices";
    v.lines.push_back(s);
  }
  std::vector<std::string> bad;
  auto note = [&](bool has, int64_t n, const char* what) {
    if (has && n > 0) bad.push_back(Count(n) + " " + what);
  };
  note(run.has_duplicates(), run.duplicates, "tuples logged twice (counted once)");
  note(run.has_unknown(), run.unknown, "tuples of unknown devices or kinds, or with impossible times (skipped)");
  note(run.has_no_link(), run.no_link, "departures by a port without a link (paths end there)");
  note(run.has_backwards(), run.backwards, "tuples later than the window allows");
  note(run.has_one_hop(), run.one_hop, "packets seen at one device only");
  note(run.has_late(), run.late, "packets stayed in a device longer than the window (raise --window)");
  if (!bad.empty()) {
    std::string s = "telemetry:";
    for (size_t i = 0; i < bad.size(); ++i) s += (i ? "; " : " ") + bad[i];
    v.lines.push_back(s);
  }

  // Devices and links by share, largest first.
  auto by_share = [](std::vector<const trace::HopSummaryRecord*> rows) {
    std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
      return (a->has_share() ? a->share : 0) > (b->has_share() ? b->share : 0);
    });
    return rows;
  };
  std::vector<const trace::HopSummaryRecord*> rows;
  for (const auto& r : devices_) rows.push_back(&r);
  v.devices.push_back({"device", "packets", "drops", "p50", "p90", "p99", "max", "share", "offset"});
  for (const auto* r : by_share(rows)) {
    std::vector<std::string> row = {r->device, Count(r->packets), Count(r->has_drops() ? r->drops : 0)};
    for (std::string& q : Quantiles(*r)) row.push_back(std::move(q));
    row.push_back(Trim(Percent(r->has_share() ? r->share : 0)));
    row.push_back(r->has_offset() ? Duration(r->offset) : "-");
    v.devices.push_back(std::move(row));
  }
  rows.clear();
  for (const auto& r : links_) rows.push_back(&r);
  v.links.push_back({"link", "packets", "p50", "p90", "p99", "max", "share"});
  for (const auto* r : by_share(rows)) {
    std::vector<std::string> row = {LinkName(*r), Count(r->packets)};
    for (std::string& q : Quantiles(*r)) row.push_back(std::move(q));
    row.push_back(Trim(Percent(r->has_share() ? r->share : 0)));
    v.links.push_back(std::move(row));
  }
  std::vector<const trace::HopSummaryRecord*> senders;
  for (const auto& r : senders_) senders.push_back(&r);
  std::sort(senders.begin(), senders.end(), [](const auto* a, const auto* b) { return NaturalLess(a->sender, b->sender); });
  v.senders.push_back({"sender", "packets", "complete", "drops", "p50", "p90", "p99", "max"});
  for (const auto* r : senders) {
    std::vector<std::string> row = {r->sender, Count(r->packets), Count(r->has_complete() ? r->complete : 0),
                                    Count(r->has_drops() ? r->drops : 0)};
    for (std::string& q : Quantiles(*r)) row.push_back(std::move(q));
    v.senders.push_back(std::move(row));
  }
  return v;
}

namespace {
constexpr const char* kDeviceTitle = "time inside each device (arrival to departure, every packet through it)";
constexpr const char* kLinkTitle = "time on each link (departure to the next device's arrival)";
constexpr const char* kSenderTitle = "end-to-end latency by sending host (complete packets)";
constexpr int kWidth = 11;  // a text table's columns
constexpr const char* kShareNote = "share: of the complete packets' summed end-to-end latency";

// The three tables as aligned text, each under its title.
void TablesText(const Table& devices, const Table& links, const Table& senders, std::string* out) {
  *out += std::string(kDeviceTitle) + "\n" + kShareNote + "\n";
  TableText(devices, out, kWidth);
  *out += "\n" + std::string(kLinkTitle) + "\n";
  TableText(links, out, kWidth);
  *out += "\n" + std::string(kSenderTitle) + "\n";
  TableText(senders, out, kWidth);
}
}  // namespace

void HopsSection::Text(std::string* out) const {
  const View v = Prepare();
  for (const std::string& s : v.lines) *out += s + "\n";
  *out += "\n";
  TablesText(v.devices, v.links, v.senders, out);
}

void HopsSection::Markdown(std::string* out) const {
  const View v = Prepare();
  *out += "## Network\n\n";
  for (const std::string& s : v.lines) *out += "- " + s + "\n";
  *out += "\n### Devices\n\n" + std::string(kDeviceTitle) + "; " + kShareNote + ".\n\n";
  TableMarkdown(v.devices, out);
  *out += "\n### Links\n\n" + std::string(kLinkTitle) + ".\n\n";
  TableMarkdown(v.links, out);
  *out += "\n### Senders\n\n" + std::string(kSenderTitle) + ".\n\n";
  TableMarkdown(v.senders, out);
}

void HopsSection::Html(std::string* out) const {
  const View v = Prepare();
  *out += "<h2>Network</h2>\n<ul>\n";
  for (const std::string& s : v.lines) *out += "<li>" + Escape(s) + "</li>\n";
  *out += "</ul>\n";
  if (grid_.empty()) {
    *out += "<p>No hop_path records: the heat map needs them (run rp-hops without --no-paths).</p>\n";
  } else {
    *out += "<h3>Latency by send time and sender</h3>\n" + HeatMap();
  }
  *out += "<h3>Where each sender's packets spend their time</h3>\n" + StackedBars();
  std::string text;
  TablesText(v.devices, v.links, v.senders, &text);
  *out += "<pre>" + Escape(text) + "</pre>\n";
}

// The paper's heat map: a row per sender, a column per span of send times,
// each cell coloured by its complete packets' mean end-to-end latency; cells
// without a complete packet are red when some were dropped, else grey.
std::string HopsSection::HeatMap() const {
  const auto& cells = grid_.cells();
  std::vector<std::string> senders;
  for (const auto& [s, row] : cells) senders.push_back(s);
  std::sort(senders.begin(), senders.end(), NaturalLess);
  const auto [first, last] = grid_.Columns();
  const double left = 90, right = 10, top = 24, width = 760;
  const double row_h = std::clamp(360.0 / static_cast<double>(senders.size()), 2.0, 16.0);
  const double plot_h = row_h * static_cast<double>(senders.size());
  const double height = top + plot_h + 62;
  const double col_w = (width - left - right) / static_cast<double>(last - first + 1);
  int64_t lo = INT64_MAX, hi = 0;
  for (const auto& [s, row] : cells) {
    for (const auto& [c, cell] : row) {
      if (cell.complete == 0) continue;
      lo = std::min(lo, cell.latency / cell.complete);
      hi = std::max(hi, cell.latency / cell.complete);
    }
  }
  if (lo > hi) lo = hi = 0;
  Svg svg(width, height, "end-to-end latency by send time and sender");
  svg.Text(4, 14, "mean end-to-end latency of the packets each sender sent in each span of " +
                      Duration(grid_.width()) + " (red: none arrived, some dropped)");
  const bool label_rows = row_h >= 9;
  for (size_t y = 0; y < senders.size(); ++y) {
    const double ry = top + row_h * static_cast<double>(y);
    if (label_rows || y == 0 || y + 1 == senders.size()) svg.Text(left - 4, ry + row_h - 2, senders[y], "end", 10);
    for (const auto& [c, cell] : cells.at(senders[y])) {
      const double x = left + col_w * static_cast<double>(c - first);
      const int64_t t0 = (c - first) * grid_.width();
      std::string tip = senders[y] + ", sent " + Duration(t0) + " to " + Duration(t0 + grid_.width()) + ": " +
                        std::to_string(cell.paths) + " packets";
      // Not one complete: red if any was dropped, else grey (their
      // telemetry is missing).
      std::string fill = cell.drops > 0 ? kWaitColour : kOtherColour;
      if (cell.complete > 0) {
        const int64_t mean = cell.latency / cell.complete;
        fill = Viridis(hi > lo ? static_cast<double>(mean - lo) / static_cast<double>(hi - lo) : 0);
        tip += ", mean latency " + Duration(mean) + ", max " + Duration(cell.most);
      }
      if (cell.drops > 0) tip += ", " + std::to_string(cell.drops) + " dropped";
      svg.Rect(x, ry, std::max(col_w, 1.0), row_h, fill, tip);
    }
  }
  const double axis = top + plot_h;
  svg.Line(left, axis, width - right, axis, "#999");
  svg.Text(left, axis + 13, "0", "start", 10);
  svg.Text(width - right, axis + 13, Duration((last - first + 1) * grid_.width()), "end", 10);
  svg.Text((left + width - right) / 2, axis + 13, "send time, from the first packet's", "middle", 10);
  // The colour scale.
  const double ly = axis + 28;
  svg.Text(left - 4, ly + 9, Duration(lo), "end", 10);
  for (int i = 0; i < 100; ++i) svg.Rect(left + 2.0 * i, ly, 2.0, 10, Viridis(i / 99.0));
  svg.Text(left + 204, ly + 9, Duration(hi), "start", 10);
  svg.Rect(left + 290, ly, 10, 10, kWaitColour);
  svg.Text(left + 304, ly + 9, "none arrived, some dropped", "start", 10);
  svg.Rect(left + 470, ly, 10, 10, kOtherColour);
  svg.Text(left + 484, ly + 9, "telemetry missing", "start", 10);
  return svg.str();
}

// The paper's per-sender bars: the mean time a complete packet from each
// sender spent in each device (and on the link into it), stacked in path
// order. The devices holding the most time get a colour each; the rest are
// grey.
std::string HopsSection::StackedBars() const {
  std::vector<const trace::HopSummaryRecord*> senders;
  for (const auto& r : senders_) {
    if (r.has_complete() && r.complete > 0 && !r.devices.empty()) senders.push_back(&r);
  }
  std::sort(senders.begin(), senders.end(), [](const auto* a, const auto* b) { return NaturalLess(a->sender, b->sender); });
  if (senders.empty()) return "<p>No complete packets: nothing to stack.</p>\n";
  std::map<std::string, double> by_device;
  double most = 1;
  for (const auto* r : senders) {
    double sum = 0;
    for (size_t i = 0; i < r->devices.size() && i < r->device_total.size(); ++i) {
      const double mean = static_cast<double>(r->device_total[i]) / static_cast<double>(r->complete);
      by_device[r->devices[i]] += mean;
      sum += mean;
    }
    most = std::max(most, sum);
  }
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [d, ns] : by_device) ranked.emplace_back(-ns, d);
  std::sort(ranked.begin(), ranked.end());
  std::map<std::string, std::string> colour;
  for (size_t i = 0; i < ranked.size() && i < kDeviceColours.size(); ++i) colour[ranked[i].second] = kDeviceColours[i];

  const double left = 90, right = 10, top = 24, width = 760;
  const double bar_h = std::clamp(480.0 / static_cast<double>(senders.size()), 3.0, 16.0);
  const double plot_h = bar_h * static_cast<double>(senders.size());
  const double height = top + plot_h + 48 + 16.0 * std::ceil(static_cast<double>(colour.size() + 1) / 5);
  Svg svg(width, height, "mean latency of each sender's packets, by device");
  svg.Text(4, 14, "mean end-to-end latency of each sender's complete packets, by device (and the link into it)");
  const double scale = (width - left - right) / most;
  for (size_t y = 0; y < senders.size(); ++y) {
    const auto* r = senders[y];
    const double by = top + bar_h * static_cast<double>(y);
    if (bar_h >= 9 || y == 0 || y + 1 == senders.size()) svg.Text(left - 4, by + bar_h - 2, r->sender, "end", 10);
    double x = left;
    for (size_t i = 0; i < r->devices.size() && i < r->device_total.size(); ++i) {
      const double mean = static_cast<double>(r->device_total[i]) / static_cast<double>(r->complete);
      const auto c = colour.find(r->devices[i]);
      svg.Rect(x, by + 1, mean * scale, std::max(bar_h - 2, 1.0), c != colour.end() ? c->second : kOtherColour,
               r->sender + " in " + r->devices[i] + ": " + Duration(std::llround(mean)) + " a packet");
      x += mean * scale;
    }
  }
  const double axis = top + plot_h;
  svg.Line(left, axis, width - right, axis, "#999");
  svg.Text(left, axis + 13, "0", "start", 10);
  svg.Text(width - right, axis + 13, Duration(std::llround(most)), "end", 10);
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& [neg, d] : ranked) {
    if (colour.count(d)) items.emplace_back(colour[d], d);
  }
  if (ranked.size() > colour.size()) items.emplace_back(kOtherColour, "other devices");
  for (size_t i = 0; i < items.size(); i += 5) {
    std::vector<std::pair<std::string, std::string>> line(items.begin() + i,
                                                          items.begin() + std::min(items.size(), i + 5));
    Legend(&svg, left, axis + 34 + 16.0 * static_cast<double>(i / 5), line);
  }
  return svg.str();
}

}  // namespace rp::report
