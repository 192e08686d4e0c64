// DiagnoseSection::Html: the diagnosis as HTML with SVG pictures.
#include <algorithm>
#include <array>
#include <cstdio>

#include "lib/report/diagnose_section.h"
#include "lib/report/format.h"
#include "lib/report/svg.h"

namespace rp::report {
namespace {

constexpr size_t kMostBars = 128;  // ranks beyond this are grouped

std::string RankRange(int64_t first, int64_t last) {
  return first == last ? "rank " + std::to_string(first)
                       : "ranks " + std::to_string(first) + "–" + std::to_string(last);
}

// Groups of consecutive ranks, at most kMostBars: [first, last] of each.
std::vector<std::pair<size_t, size_t>> Groups(size_t ranks) {
  std::vector<std::pair<size_t, size_t>> out;
  const size_t n = std::min(ranks, kMostBars);
  for (size_t g = 0; g < n; ++g) out.emplace_back(g * ranks / n, (g + 1) * ranks / n - 1);
  return out;
}

// A bar per rank (or group of ranks: its largest value) of `values`.
std::string RankChart(const std::vector<int64_t>& values, const std::string& label, const std::string& colour) {
  const double width = 760, height = 150, left = 80, bottom = 20, top = 18;
  Svg svg(width, height, label + " by rank");
  const auto groups = Groups(values.size());
  int64_t most = 1;
  for (int64_t v : values) most = std::max(most, v);
  const double bar = (width - left - 10) / static_cast<double>(std::max<size_t>(groups.size(), 1));
  svg.Text(4, 12, label + ", by rank (largest " + Duration(most) + ")");
  svg.Line(left, height - bottom, width - 10, height - bottom, "#999");
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto [first, last] = groups[g];
    int64_t v = 0;
    for (size_t r = first; r <= last; ++r) v = std::max(v, values[r]);
    const double h = (height - bottom - top) * static_cast<double>(v) / static_cast<double>(most);
    svg.Rect(left + bar * static_cast<double>(g) + 1, height - bottom - h, std::max(bar - 2, 1.0), h, colour,
             RankRange(first, last) + ": " + Duration(v));
  }
  svg.Text(left, height - 5, RankRange(0, 0).substr(5), "start");
  svg.Text(width - 10, height - 5, std::to_string(values.size() - 1), "end");
  svg.Text(left - 4, height - bottom, "0", "end");
  return svg.str();
}

// Computation, MPI (not waiting) and waiting of each rank (or group of
// ranks: their means), stacked.
std::string StackedRanks(const trace::EfficiencyRecord& run) {
  const size_t ranks = run.rank_compute.size();
  const double width = 760, height = 200, left = 80, bottom = 36, top = 10;
  Svg svg(width, height, "time by rank: computation, MPI and waiting");
  const auto groups = Groups(ranks);
  std::vector<std::array<double, 3>> parts;
  double most = 1;
  for (const auto& [first, last] : groups) {
    std::array<double, 3> p{};
    for (size_t r = first; r <= last; ++r) {
      const double wait = r < run.rank_wait.size() ? static_cast<double>(run.rank_wait[r]) : 0;
      const double mpi = r < run.rank_mpi.size() ? static_cast<double>(run.rank_mpi[r]) : 0;
      p[0] += static_cast<double>(run.rank_compute[r]);
      p[1] += std::max(0.0, mpi - wait);
      p[2] += wait;
    }
    for (double& x : p) x /= static_cast<double>(last - first + 1);
    most = std::max(most, p[0] + p[1] + p[2]);
    parts.push_back(p);
  }
  const double bar = (width - left - 10) / static_cast<double>(std::max<size_t>(groups.size(), 1));
  const char* colours[] = {kComputeColour, kMpiColour, kWaitColour};
  const char* names[] = {"computation", "MPI", "waiting"};
  for (size_t g = 0; g < groups.size(); ++g) {
    double y = height - bottom;
    for (int k = 0; k < 3; ++k) {
      const double h = (height - bottom - top) * parts[g][k] / most;
      y -= h;
      svg.Rect(left + bar * static_cast<double>(g) + 1, y, std::max(bar - 2, 1.0), h, colours[k],
               RankRange(groups[g].first, groups[g].second) + ": " + names[k] + " " +
                   Duration(static_cast<int64_t>(parts[g][k])));
    }
  }
  svg.Line(left, height - bottom, width - 10, height - bottom, "#999");
  svg.Text(left - 4, top + 8, Duration(static_cast<int64_t>(most)), "end");
  svg.Text(left, height - bottom + 14, "0");
  svg.Text(width - 10, height - bottom + 14, std::to_string(ranks - 1), "end");
  Legend(&svg, left, height - 4, {{kComputeColour, "computation"}, {kMpiColour, "MPI"}, {kWaitColour, "waiting"}});
  return svg.str();
}

// The run's efficiencies as bars out of 100%.
std::string EfficiencyBars(const trace::EfficiencyRecord& e) {
  const std::pair<const char*, double> rows[] = {{"parallel efficiency", e.parallel}, {"load balance", e.load_balance},
                                                 {"communication", e.communication},
                                                 {"serialisation", e.serialisation}, {"transfer", e.transfer}};
  const double width = 560, row = 22, left = 150;
  Svg svg(width, row * 5 + 8, "the run's POP efficiencies");
  for (int i = 0; i < 5; ++i) {
    const double y = 4 + row * i;
    svg.Text(left - 8, y + 14, rows[i].first, "end");
    svg.Rect(left, y + 3, width - left - 60, row - 8, "#e8e8e8");
    const double v = std::clamp(rows[i].second, 0.0, 1.0);
    svg.Rect(left, y + 3, (width - left - 60) * v, row - 8, v >= 0.8 ? "#59a14f" : v >= 0.6 ? "#edc948" : kWaitColour,
             std::string(rows[i].first) + " " + Trim(Percent(rows[i].second)));
    svg.Text(width - 54, y + 14, Trim(Percent(rows[i].second)));
  }
  return svg.str();
}

// One representative phase: a lane per rank (or group of ranks), each time
// bin's computation, MPI and waiting stacked as shares of the lane's
// ranks; the critical path drawn over it.
std::string TimelineChart(const std::vector<trace::TimelineRecord>& records) {
  // Lanes with all three series of one length (the first lane's), and a
  // path whose arrays agree; anything else is passed over, not drawn.
  std::vector<const trace::TimelineRecord*> lanes;
  const trace::TimelineRecord* path = nullptr;
  size_t bins = 0;
  for (const auto& r : records) {
    if (r.lane < 0) {
      if (r.has_ranks() && r.has_starts() && r.has_ends() && r.ranks.size() == r.starts.size() &&
          r.ranks.size() == r.ends.size()) {
        path = &r;
      }
      continue;
    }
    if (!r.has_compute() || !r.has_mpi() || !r.has_wait() || !r.has_first() || !r.has_last() || r.last < r.first) {
      continue;
    }
    if (lanes.empty()) bins = r.compute.size();
    if (r.compute.size() != bins || r.mpi.size() != bins || r.wait.size() != bins) continue;
    lanes.push_back(&r);
  }
  if (lanes.empty() || bins == 0) return "";
  const trace::TimelineRecord& any = *lanes[0];
  const double width = 960, left = 90, right = 10, top = 8;
  const double lane_h = std::clamp(420.0 / static_cast<double>(lanes.size()), 6.0, 26.0);
  const double height = top + lane_h * static_cast<double>(lanes.size()) + 40;
  Svg svg(width, height, "timeline of a representative phase");
  const double span = static_cast<double>(std::max<int64_t>(any.t1 - any.t0, 1));
  auto x = [&](int64_t t) { return left + (width - left - right) * static_cast<double>(t - any.t0) / span; };
  const double bin_w = (width - left - right) / static_cast<double>(std::max<size_t>(bins, 1));
  const double bin_ns = span / static_cast<double>(std::max<size_t>(bins, 1));
  for (size_t l = 0; l < lanes.size(); ++l) {
    const trace::TimelineRecord& r = *lanes[l];
    const double y0 = top + lane_h * static_cast<double>(l);
    const double ranks = static_cast<double>(r.last - r.first + 1);
    if (lanes.size() <= 32 || l % (lanes.size() / 16) == 0) {
      svg.Text(left - 6, y0 + lane_h * 0.75, RankRange(r.first, r.last), "end", std::min(11.0, lane_h));
    }
    // Each bin's three heights, to a tenth of a pixel; runs of equal bins
    // are drawn as one rectangle each (a steady stretch is one shape).
    auto heights = [&](size_t b) {
      const double values[] = {static_cast<double>(r.compute[b]), static_cast<double>(r.mpi[b]),
                               static_cast<double>(r.wait[b])};
      std::array<int, 3> h{};
      for (int k = 0; k < 3; ++k) h[k] = static_cast<int>(10 * (lane_h - 2) * std::min(1.0, values[k] / (ranks * bin_ns)));
      return h;
    };
    const char* colours[] = {kComputeColour, kMpiColour, kWaitColour};
    for (size_t b = 0; b < bins;) {
      const std::array<int, 3> h = heights(b);
      size_t e = b + 1;
      while (e < bins && heights(e) == h) ++e;
      double y = y0 + lane_h - 1;
      for (int k = 0; k < 3; ++k) {
        if (h[k] == 0) continue;
        y -= h[k] / 10.0;
        svg.Rect(left + bin_w * static_cast<double>(b), y, bin_w * static_cast<double>(e - b) + 0.2, h[k] / 10.0,
                 colours[k]);
      }
      b = e;
    }
  }
  if (path && !path->ranks.empty()) {
    // Each step at its rank's lane's middle, joined where the path moves.
    const int64_t ranks = lanes.back()->last + 1;
    auto lane_y = [&](int64_t rank) {
      const int64_t lane = std::clamp<int64_t>(rank, 0, ranks - 1) * static_cast<int64_t>(lanes.size()) / ranks;
      return top + lane_h * (static_cast<double>(lane) + 0.5);
    };
    std::vector<std::pair<double, double>> points;
    for (size_t i = 0; i < path->ranks.size(); ++i) {
      points.emplace_back(x(path->starts[i]), lane_y(path->ranks[i]));
      points.emplace_back(x(path->ends[i]), lane_y(path->ranks[i]));
    }
    svg.Polyline(points, kPathColour, 2);
  }
  const double axis = top + lane_h * static_cast<double>(lanes.size()) + 14;
  svg.Text(left, axis, "0");
  svg.Text(width - right, axis, Duration(any.t1 - any.t0), "end");
  Legend(&svg, left, axis + 18,
         {{kComputeColour, "computation"}, {kMpiColour, "MPI"}, {kWaitColour, "waiting"}, {kPathColour, "critical path"}});
  return svg.str();
}

}  // namespace

void DiagnoseSection::Html(std::string* out) const {
  auto add = [&](const std::string& s) { *out += s; };
  add("<h2>Findings</h2>\n");
  if (findings_.empty()) add("<p>None above the threshold.</p>\n");
  if (!findings_.empty()) {
    add("<p>Most severe first. Severity: the share of run time the fix would save.</p>\n");
    add("<table class=\"findings\"><tr><th>#</th><th>finding</th><th>severity</th><th>where</th><th>caused by</th>"
        "</tr>\n");
    for (size_t i = 0; i < findings_.size(); ++i) {
      const trace::FindingRecord& f = findings_[i];
      std::string where = f.has_call() ? f.call : "";
      if (f.has_file()) {
        where += FileLine(f);
      } else if (f.has_call() && f.has_fn()) {
        where += " in " + ShortFunction(f.fn);
      }
      if (f.has_cluster()) where += ", phase cluster " + std::to_string(f.cluster);
      if (!f.has_call() && f.has_fn()) where = f.fn;
      std::string causes;
      for (size_t c = 0; f.has_causes() && c < f.causes.size() && c < 3; ++c) {
        causes += (c ? ", " : "") + ShortFunction(f.causes[c]);
      }
      Svg bar(120, 14, "severity");
      bar.Rect(0, 2, 120, 10, "#e8e8e8");
      bar.Rect(0, 2, 120 * std::clamp(f.severity, 0.0, 1.0), 10, kWaitColour);
      add("<tr><td>" + std::to_string(i + 1) + "</td><td><a href=\"#finding-" + std::to_string(i + 1) + "\">" +
          Escape(CategoryWords(f.category)) + "</a></td><td>" + bar.str() + " " + Escape(Trim(Percent(f.severity))) +
          "</td><td>" + Escape(where) + "</td><td>" + Escape(causes) + "</td></tr>\n");
    }
    add("</table>\n");
    for (size_t i = 0; i < findings_.size(); ++i) {
      const trace::FindingRecord& f = findings_[i];
      const std::vector<std::string> lines = FindingLines(f);
      add("<section class=\"finding\" id=\"finding-" + std::to_string(i + 1) + "\" data-category=\"" +
          Escape(f.category) + "\">\n<h3>" + std::to_string(i + 1) + ". " + Escape(lines[0]) + "</h3>\n");
      for (size_t j = 1; j < lines.size(); ++j) add("<p>" + Escape(lines[j]) + "</p>\n");
      if (f.has_rank_values() && !f.rank_values.empty() && f.has_rank_label()) {
        add(RankChart(f.rank_values, f.rank_label, kWaitColour));
      }
      add("</section>\n");
    }
  }
  const trace::EfficiencyRecord* run = nullptr;
  for (const auto& e : efficiencies_) {
    if (!e.has_cluster()) run = &e;
  }
  if (!efficiencies_.empty()) {
    add("<h2>Efficiencies (POP)</h2>\n");
    if (run) add(EfficiencyBars(*run));
    add("<table class=\"efficiency\">\n");
    const Table rows = EfficiencyRows();
    for (size_t r = 0; r < rows.size(); ++r) {
      add("<tr>");
      for (const std::string& cell : rows[r]) add((r == 0 ? "<th>" : "<td>") + Escape(cell) + (r == 0 ? "</th>" : "</td>"));
      add("</tr>\n");
    }
    add("</table>\n");
  }
  if (run && run->has_rank_compute() && !run->rank_compute.empty()) {
    add("<h2>Time by rank</h2>\n");
    add(StackedRanks(*run));
  }
  if (!timeline_.empty()) {
    const trace::TimelineRecord& t = timeline_[0];
    std::string what = t.has_phase() ? "phase " + std::to_string(t.phase) : std::string("the run");
    if (t.has_cluster()) what += " of cluster " + std::to_string(t.cluster) + ", the cluster that took the most time";
    add("<h2>Timeline of a representative phase</h2>\n<p>" + Escape(what) +
        "; each lane's height is split into the shares of its ranks computing, in MPI and waiting.</p>\n");
    add(TimelineChart(timeline_));
  }
}

}  // namespace rp::report
