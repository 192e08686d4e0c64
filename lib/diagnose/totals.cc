#include "lib/diagnose/totals.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>

namespace rp::diagnose {

void Totals::Add(const PhaseFigures& f) {
  ++phases;
  runtime += f.time();
  ideal += f.ideal;
  if (compute.size() < f.ranks.size()) {
    compute.resize(f.ranks.size());
    mpi.resize(f.ranks.size());
    wait.resize(f.ranks.size());
    closing_wait.resize(f.ranks.size());
    present.resize(f.ranks.size());
  }
  std::vector<size_t> members;
  bool synchronized = true;
  for (size_t r = 0; r < f.ranks.size(); ++r) {
    if (!f.ranks[r].present) continue;
    members.push_back(r);
    present[r] = true;
    compute[r] += f.ranks[r].compute;
    mpi[r] += f.ranks[r].mpi;
    wait[r] += f.ranks[r].wait;
    synchronized &= f.ranks[r].closed;
  }
  for (const auto& [key, sum] : f.waits) waits[key].Add(sum);
  for (const auto& [site, sum] : f.sites) sites[site].Add(sum);
  for (const auto& [function, ns] : f.posix_io) {
    std::vector<double>& io = posix_io[function];
    if (io.size() < ns.size()) io.resize(ns.size());
    for (size_t r = 0; r < ns.size(); ++r) io[r] += static_cast<double>(ns[r]);
  }
  if (members.empty()) return;
  const double n = static_cast<double>(members.size());
  if (synchronized) {
    double sum = 0, least = INFINITY;
    for (size_t r : members) {
      sum += static_cast<double>(f.ranks[r].closing_wait);
      least = std::min(least, static_cast<double>(f.ranks[r].closing_wait));
    }
    for (size_t r : members) closing_wait[r] += f.ranks[r].closing_wait;
    symptom += sum / n - least;
    if (f.balance_measured) {
      for (const auto& [function, ns] : f.what_if) what_if[function] += ns;
    } else {
      unmeasured += sum / n - least;
    }
    wasted += sum - n * least;
    ++closed;
    ++closing[{f.ranks[members[0]].closing_site, f.ranks[members[0]].closing_fn}];
  }
  // Programs (§5.4): ranks of one control flow are a group; groups whose
  // call sites agree at least half (Jaccard similarity of 1/2 or more: an
  // edge rank of a stencil skips a neighbour's messages; the senders and
  // receivers of a pairwise exchange share the wait and the
  // synchronization) are one program. A
  // program needs at least two ranks: one rank of its own flow (rank 0
  // writing) is not a program.
  std::map<uint64_t, std::vector<size_t>> by_flow;
  for (size_t r : members) by_flow[f.ranks[r].flow].push_back(r);
  std::vector<std::vector<size_t>> groups_of;
  std::vector<std::vector<int32_t>> sites_of;
  for (auto& [flow, ranks_of] : by_flow) {
    groups_of.push_back(ranks_of);
    std::vector<int32_t> sites = f.ranks[ranks_of[0]].sites;
    std::sort(sites.begin(), sites.end());
    sites_of.push_back(std::move(sites));
  }
  std::vector<size_t> program(groups_of.size());
  for (size_t i = 0; i < program.size(); ++i) program[i] = i;
  std::function<size_t(size_t)> find = [&](size_t i) { return program[i] == i ? i : program[i] = find(program[i]); };
  for (size_t i = 0; i < groups_of.size(); ++i) {
    for (size_t j = i + 1; j < groups_of.size(); ++j) {
      std::vector<int32_t> common;
      std::set_intersection(sites_of[i].begin(), sites_of[i].end(), sites_of[j].begin(), sites_of[j].end(),
                            std::back_inserter(common));
      const size_t all = sites_of[i].size() + sites_of[j].size() - common.size();
      if (all > 0 && 2 * common.size() >= all) program[find(j)] = find(i);
    }
  }
  // Each program keyed by its sites (stable from phase to phase of a cluster).
  std::map<std::vector<int32_t>, std::vector<size_t>> programs;
  {
    std::map<size_t, std::pair<std::vector<int32_t>, std::vector<size_t>>> by_root;
    for (size_t i = 0; i < groups_of.size(); ++i) {
      auto& [sites, ranks_of] = by_root[find(i)];
      sites.insert(sites.end(), sites_of[i].begin(), sites_of[i].end());
      ranks_of.insert(ranks_of.end(), groups_of[i].begin(), groups_of[i].end());
    }
    for (auto& [root, p] : by_root) {
      std::sort(p.first.begin(), p.first.end());
      p.first.erase(std::unique(p.first.begin(), p.first.end()), p.first.end());
      std::sort(p.second.begin(), p.second.end());
      if (p.second.size() >= 2) programs[p.first] = p.second;
    }
  }
  std::map<uint64_t, std::vector<size_t>> flows;
  for (const auto& [sites, ranks_of] : programs) {
    uint64_t key = 0xcbf29ce484222325ULL;
    for (int32_t site : sites) key = (key ^ static_cast<uint32_t>(site)) * 0x100000001b3ULL;
    flows[key] = ranks_of;
  }
  if (flows.size() > 1) {
    ++mpmd_phases;
    for (const auto& [flow, ranks_of] : flows) {
      Group& g = groups[flow];
      if (g.members.size() < f.ranks.size()) g.members.resize(f.ranks.size());
      double sum = 0, least = INFINITY;
      for (size_t r : ranks_of) {
        g.members[r] = true;
        sum += static_cast<double>(f.ranks[r].closing_wait);
        least = std::min(least, static_cast<double>(f.ranks[r].closing_wait));
      }
      if (synchronized) {
        g.symptom += sum / static_cast<double>(ranks_of.size()) - least;
        ++g.closed;
      }
      for (const auto& [function, ns] : f.functions) {
        std::vector<double>& t = g.time[function];
        if (t.size() < f.ranks.size()) t.resize(f.ranks.size());
        for (size_t r : ranks_of) t[r] += static_cast<double>(ns[r]);
      }
    }
  }
  for (const auto& [function, ns] : f.functions) {
    Cause& c = causes[function];
    if (c.time.size() < f.ranks.size()) c.time.resize(f.ranks.size());
    for (size_t r : members) c.time[r] += static_cast<double>(ns[r]);
  }
}

double Totals::CauseNs(const Cause& c) const {
  double sum = 0, most = 0;
  int64_t n = 0;
  for (size_t r = 0; r < present.size(); ++r) {
    if (!present[r]) continue;
    const double t = r < c.time.size() ? c.time[r] : 0;
    sum += t;
    most = std::max(most, t);
    ++n;
  }
  return n > 0 ? most - sum / static_cast<double>(n) : 0;
}

std::vector<double> Totals::Excess(const Cause& c) const {
  double sum = 0;
  int64_t n = 0;
  for (size_t r = 0; r < present.size(); ++r) {
    if (present[r]) sum += r < c.time.size() ? c.time[r] : 0, ++n;
  }
  std::vector<double> excess(present.size());
  for (size_t r = 0; r < present.size() && n > 0; ++r) {
    if (present[r] && r < c.time.size()) excess[r] = std::max(0.0, c.time[r] - sum / static_cast<double>(n));
  }
  return excess;
}

int64_t Totals::ranks() const { return std::count(present.begin(), present.end(), true); }

int64_t Totals::compute_max() const {
  return compute.empty() ? 0 : *std::max_element(compute.begin(), compute.end());
}

int64_t Totals::compute_avg() const {
  int64_t sum = 0;
  for (size_t r = 0; r < compute.size(); ++r) sum += present[r] ? compute[r] : 0;
  return ranks() > 0 ? sum / ranks() : 0;
}

}  // namespace rp::diagnose
