#include "lib/report/repr_section.h"

#include <algorithm>
#include <cstdio>

#include "lib/report/format.h"

namespace rp::report {
namespace {

constexpr size_t kClusterRows = 10, kDiffRows = 10;

std::string PercentileName(double p) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", p);
  return buf;
}

}  // namespace

void ReprSection::Add(const trace::Record& record) {
  if (record.type == trace::RecordType::kPath) {
    const trace::PathRecord& p = record.path;
    const int64_t cluster = p.has_phase() ? (p.has_cluster() ? p.cluster : p.phase) : -1;
    std::vector<Slot>& slots = clusters_[cluster];
    const size_t j = static_cast<size_t>(std::max<int64_t>(p.order, 1) - 1);
    if (slots.size() <= j) slots.resize(j + 1);
    Slot& s = slots[j];
    s.percentile = p.percentile;
    ++s.phases;
    s.cost += p.cost;
    s.share += p.has_share() ? p.share : 0;
    if (j == 0) ++phases_[cluster];
    return;
  }
  if (record.type == trace::RecordType::kPathDiff && !record.path_diff.has_cluster()) {
    // A pair's whole-path record comes first, then its functions'.
    const trace::PathDiffRecord& d = record.path_diff;
    if (!d.has_fn()) {
      diffs_.push_back({d.a, d.b, d.diff, d.has_share() ? d.share : 0, {}});
    } else if (!diffs_.empty()) {
      diffs_.back().functions.push_back(d);
    }
  }
}

std::vector<std::string> ReprSection::ClusterRows(bool markdown) const {
  // Clusters by their 100% paths' whole cost, largest first.
  std::vector<std::pair<int64_t, const std::vector<Slot>*>> order;
  for (const auto& [cluster, slots] : clusters_) order.emplace_back(cluster, &slots);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return (a.second->empty() ? 0 : (*a.second)[0].cost) > (b.second->empty() ? 0 : (*b.second)[0].cost);
  });
  std::vector<std::string> rows;
  for (size_t i = 0; i < order.size() && i < kClusterRows; ++i) {
    const auto& [cluster, slots] = order[i];
    const int64_t phases = phases_.count(cluster) ? phases_.at(cluster) : 0;
    // The whole run's paths run through every phase.
    const std::string name = cluster < 0 ? "run" : std::to_string(cluster);
    const std::string count = cluster < 0 ? "all" : std::to_string(phases);
    std::string line, shares;
    if (markdown) {
      line = "| " + name + " | " + count + " |";
      for (const Slot& s : *slots) {
        line += " " + Duration(s.phases ? s.cost / s.phases : 0) + " (" +
                Trim(Percent(s.phases ? s.share / s.phases : 0)) + ") |";
      }
      rows.push_back(line);
      continue;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%7s %7s", name.c_str(), count.c_str());
    line = buf;
    shares = std::string(15, ' ');
    for (const Slot& s : *slots) {
      std::snprintf(buf, sizeof buf, " %12s", Duration(s.phases ? s.cost / s.phases : 0).c_str());
      line += buf;
      std::snprintf(buf, sizeof buf, " %12s", Percent(s.phases ? s.share / s.phases : 0).c_str());
      shares += buf;
    }
    rows.push_back(line);
    rows.push_back(shares);
  }
  return rows;
}

void ReprSection::Text(std::string* out) const {
  auto line = [&](const std::string& s) { *out += s + "\n"; };
  if (!clusters_.empty()) {
    line("representative paths: each kept path's mean cost per phase, and its share of the phase's time");
    std::string head = "cluster  phases";
    const std::vector<Slot>& first = clusters_.begin()->second;
    for (const Slot& s : first) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %12s", PercentileName(s.percentile).c_str());
      head += buf;
    }
    line(head);
    for (const std::string& r : ClusterRows(false)) line(r);
  }
  for (const Diff& d : diffs_) {
    line("");
    line("what the " + PercentileName(d.a) + " path spent more than the " + PercentileName(d.b) + " path, whole run: " +
         Duration(d.total) + " (" + Trim(Percent(d.share)) + " of the " + PercentileName(d.a) + " path)");
    for (size_t i = 0; i < d.functions.size() && i < kDiffRows; ++i) {
      const trace::PathDiffRecord& f = d.functions[i];
      if (f.diff <= 0) break;
      char buf[512];
      std::snprintf(buf, sizeof buf, "  %14s %s  %s", Duration(f.diff).c_str(),
                    Percent(f.has_share() ? f.share : 0).c_str(), ShortFunction(f.has_fn() ? f.fn : "?").c_str());
      line(buf);
    }
  }
}

void ReprSection::Markdown(std::string* out) const {
  auto line = [&](const std::string& s) { *out += s + "\n"; };
  line("## Representative paths");
  line("");
  if (!clusters_.empty()) {
    line("Each kept path's mean cost per phase, and its share of the phase's time.");
    line("");
    std::string head = "| cluster | phases |", rule = "|---|---:|";
    for (const Slot& s : clusters_.begin()->second) head += " " + PercentileName(s.percentile) + " |", rule += "---:|";
    line(head);
    line(rule);
    for (const std::string& r : ClusterRows(true)) line(r);
  }
  for (const Diff& d : diffs_) {
    line("");
    line("### What the " + PercentileName(d.a) + " path spent more than the " + PercentileName(d.b) + " path");
    line("");
    line("Whole run: " + Duration(d.total) + " (" + Trim(Percent(d.share)) + " of the " + PercentileName(d.a) +
         " path).");
    line("");
    line("| more | share | function |");
    line("|---:|---:|---|");
    for (size_t i = 0; i < d.functions.size() && i < kDiffRows; ++i) {
      const trace::PathDiffRecord& f = d.functions[i];
      if (f.diff <= 0) break;
      line("| " + Duration(f.diff) + " | " + Trim(Percent(f.has_share() ? f.share : 0)) + " | " +
           ShortFunction(f.has_fn() ? f.fn : "?") + " |");
    }
  }
}

}  // namespace rp::report
