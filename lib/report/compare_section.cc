#include "lib/report/compare_section.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "lib/report/diagnose_section.h"
#include "lib/report/format.h"

namespace rp::report {
namespace {

constexpr size_t kClusters = 3;  // clusters shown beside the runs: run a's longest

std::string Signed(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * share);
  return buf;
}

}  // namespace

void CompareSection::Add(const trace::Record& record) {
  if (record.type == trace::RecordType::kFindingChange) changes_.push_back(record.finding_change);
  if (record.type == trace::RecordType::kEfficiency && record.efficiency.has_run()) {
    (record.efficiency.run == "a" ? a_ : b_).push_back(record.efficiency);
  }
}

std::vector<std::vector<std::string>> CompareSection::ChangeRows() const {
  std::vector<std::vector<std::string>> rows{{"status", "a", "b", "change", "finding"}};
  for (const trace::FindingChangeRecord& c : changes_) {
    std::string what = CategoryWords(c.category);
    if (c.has_cluster()) what += " in phase cluster " + std::to_string(c.cluster);
    if (c.has_call()) what += " at " + c.call + FileLine(c);
    if (c.has_group() && !c.group.empty()) {
      what += ", group of ranks " + std::to_string(c.group.front()) + "–" + std::to_string(c.group.back());
    }
    rows.push_back({c.status, c.has_severity_a() ? Trim(Percent(c.severity_a)) : "-",
                    c.has_severity_b() ? Trim(Percent(c.severity_b)) : "-", c.has_delta() ? Signed(c.delta) : "",
                    what});
  }
  return rows;
}

std::vector<std::vector<std::string>> CompareSection::EfficiencyRows() const {
  auto run = [](const std::vector<trace::EfficiencyRecord>& v) -> const trace::EfficiencyRecord* {
    for (const auto& e : v) {
      if (!e.has_cluster()) return &e;
    }
    return nullptr;
  };
  std::vector<std::pair<std::string, const trace::EfficiencyRecord*>> columns{{"a: run", run(a_)},
                                                                              {"b: run", run(b_)}};
  std::vector<const trace::EfficiencyRecord*> longest;
  for (const auto& e : a_) {
    if (e.has_cluster()) longest.push_back(&e);
  }
  std::stable_sort(longest.begin(), longest.end(), [](const auto* x, const auto* y) { return x->runtime > y->runtime; });
  for (size_t i = 0; i < longest.size() && i < kClusters; ++i) {
    const int64_t cluster = longest[i]->cluster;
    const trace::EfficiencyRecord* in_b = nullptr;
    for (const auto& e : b_) {
      if (e.has_cluster() && e.cluster == cluster) in_b = &e;
    }
    columns.emplace_back("a: cluster " + std::to_string(cluster), longest[i]);
    columns.emplace_back("b: cluster " + std::to_string(cluster), in_b);
  }
  return EfficiencyTable(columns);
}

void CompareSection::Text(std::string* out) const {
  const double band = changes_.empty() ? 0 : changes_[0].band;
  *out += "findings of run a and run b compared (severity: the share of run time the fix would save; changes "
          "within " + Trim(Percent(band)) + " are noise)\n";
  const auto rows = ChangeRows();
  if (rows.size() == 1) *out += "none above the threshold in either run\n";
  for (size_t r = 1; r < rows.size(); ++r) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%-10s %7s -> %-7s %8s  ", rows[r][0].c_str(), rows[r][1].c_str(),
                  rows[r][2].c_str(), rows[r][3].c_str());
    *out += buf + rows[r][4] + "\n";
  }
  *out += "\nefficiencies (POP)\n";
  TableText(EfficiencyRows(), out);
}

void CompareSection::Markdown(std::string* out) const {
  *out += "## Findings compared\n\n";
  const auto rows = ChangeRows();
  if (rows.size() == 1) {
    *out += "None above the threshold in either run.\n";
  } else {
    *out += "| status | a | b | change | finding |\n|---|---:|---:|---:|---|\n";
    for (size_t r = 1; r < rows.size(); ++r) {
      *out += "| " + rows[r][0] + " | " + rows[r][1] + " | " + rows[r][2] + " | " + rows[r][3] + " | " + rows[r][4] +
              " |\n";
    }
  }
  *out += "\n## Efficiencies (POP)\n\n";
  TableMarkdown(EfficiencyRows(), out);
}

}  // namespace rp::report
