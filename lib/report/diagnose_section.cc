#include "lib/report/diagnose_section.h"

#include <algorithm>
#include <cstdio>

#include "lib/report/format.h"

namespace rp::report {
namespace {

constexpr size_t kEfficiencyColumns = 8;  // the run and the longest clusters

}  // namespace

std::string CategoryWords(const std::string& category) {
  std::string s = category;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

Table EfficiencyTable(const std::vector<std::pair<std::string, const trace::EfficiencyRecord*>>& columns) {
  Table rows{{""}, {"phases"}, {"parallel efficiency"}, {"  load balance"}, {"  communication"}, {"    serialisation"},
             {"    transfer"}};
  for (const auto& [label, e] : columns) {
    rows[0].push_back(label);
    for (size_t r = 1; r < rows.size(); ++r) {
      if (!e) {
        rows[r].push_back("-");
        continue;
      }
      const double v[] = {0, 0, e->parallel, e->load_balance, e->communication, e->serialisation, e->transfer};
      rows[r].push_back(r == 1 ? std::to_string(e->phases) : Trim(Percent(v[r])));
    }
  }
  return rows;
}

void DiagnoseSection::Add(const trace::Record& record) {
  // A comparison's efficiencies (run a, run b) are the compare section's.
  if (record.type == trace::RecordType::kEfficiency && !record.efficiency.has_run()) {
    // The run's record opens a diagnosis: a stream diagnosed again shows
    // the last one only.
    if (!record.efficiency.has_cluster()) {
      efficiencies_.clear();
      findings_.clear();
      timeline_.clear();
    }
    efficiencies_.push_back(record.efficiency);
  }
  if (record.type == trace::RecordType::kFinding) findings_.push_back(record.finding);
  if (record.type == trace::RecordType::kTimeline) timeline_.push_back(record.timeline);
}

std::vector<std::string> DiagnoseSection::FindingLines(const trace::FindingRecord& f) const {
  std::vector<std::string> lines;
  std::string head = CategoryWords(f.category) + ": " + Trim(Percent(f.severity)) + " of run time (" + Duration(f.saved) +
                     ")";
  if (f.has_cluster()) head += " in phase cluster " + std::to_string(f.cluster);
  if (f.has_call()) {
    head += " at " + f.call;
    if (f.has_file()) {
      head += FileLine(f);
    } else if (f.has_fn()) {
      head += " in " + ShortFunction(f.fn);
    }
  }
  if (!f.has_call() && f.has_fn()) head += " in " + ShortFunction(f.fn);
  lines.push_back(head);
  if (f.has_causes()) {
    std::string causes = "caused by ";
    for (size_t i = 0; i < f.causes.size() && i < 5; ++i) {
      if (i > 0) causes += ", ";
      causes += ShortFunction(f.causes[i]);
      if (i < f.cause_ns.size()) causes += " (" + Duration(f.cause_ns[i]) + ")";
    }
    if (f.has_ranks() && !f.ranks.empty()) {
      causes += " on rank";
      causes += f.ranks.size() > 1 ? "s " : " ";
      for (size_t i = 0; i < f.ranks.size() && i < 8; ++i) causes += (i ? ", " : "") + std::to_string(f.ranks[i]);
      if (f.ranks.size() > 8) causes += ", ...";
    }
    if (f.has_partial() && f.partial) causes += "; partly evened out";
    lines.push_back(causes);
  }
  lines.push_back("evidence: " + f.evidence);
  lines.push_back("remedy: " + f.remedy);
  return lines;
}

Table DiagnoseSection::EfficiencyRows() const {
  // The run, then the clusters that took the most time.
  std::vector<const trace::EfficiencyRecord*> order;
  for (const trace::EfficiencyRecord& e : efficiencies_) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->has_cluster() != b->has_cluster() ? !a->has_cluster() : a->runtime > b->runtime;
  });
  std::vector<std::pair<std::string, const trace::EfficiencyRecord*>> columns;
  for (size_t i = 0; i < order.size() && i < kEfficiencyColumns; ++i) {
    columns.emplace_back(order[i]->has_cluster() ? "cluster " + std::to_string(order[i]->cluster) : "run", order[i]);
  }
  return EfficiencyTable(columns);
}

void DiagnoseSection::Text(std::string* out) const {
  auto line = [&](const std::string& s) { *out += s + "\n"; };
  if (findings_.empty()) {
    line("findings: none above the threshold");
  } else {
    line("findings, most severe first (severity: the share of run time the fix would save)");
    for (size_t i = 0; i < findings_.size(); ++i) {
      const std::vector<std::string> lines = FindingLines(findings_[i]);
      line(std::to_string(i + 1) + ". " + lines[0]);
      for (size_t j = 1; j < lines.size(); ++j) line("   " + lines[j]);
    }
  }
  if (efficiencies_.empty()) return;
  line("");
  line("efficiencies (POP)");
  TableText(EfficiencyRows(), out);
}

void DiagnoseSection::Markdown(std::string* out) const {
  auto line = [&](const std::string& s) { *out += s + "\n"; };
  line("## Findings");
  line("");
  if (findings_.empty()) line("None above the threshold.");
  for (size_t i = 0; i < findings_.size(); ++i) {
    const std::vector<std::string> lines = FindingLines(findings_[i]);
    line(std::to_string(i + 1) + ". **" + lines[0] + "**");
    for (size_t j = 1; j < lines.size(); ++j) line("   - " + lines[j]);
  }
  if (efficiencies_.empty()) return;
  line("");
  line("## Efficiencies (POP)");
  line("");
  TableMarkdown(EfficiencyRows(), out);
}

}  // namespace rp::report
