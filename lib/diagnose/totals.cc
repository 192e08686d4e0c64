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
  if (synchronized) {
    const double s = f.Symptom(members);
    for (size_t r : members) closing_wait[r] += f.ranks[r].closing_wait;
    symptom += s;
    if (f.balance_measured) {
      for (const auto& [function, ns] : f.what_if) what_if[function] += ns;
    } else {
      unmeasured += s;
    }
    wasted += static_cast<double>(members.size()) * s;  // sum over ranks of wait - min
    ++closed;
    ++closing[{f.ranks[members[0]].closing_site, f.ranks[members[0]].closing_fn}];
  }
  // Programs (§5.4): ranks calling the same sites are a group; groups
  // whose site sets agree at least half (Jaccard similarity of 1/2 or
  // more: an edge rank of a stencil skips a neighbour's messages; the
  // senders and receivers of a pairwise exchange share the wait and the
  // synchronization) are one program. A program needs at least two ranks:
  // one rank of its own (rank 0 writing) is not a program.
  std::map<std::vector<int32_t>, std::vector<size_t>> by_sites;
  for (size_t r : members) {
    std::vector<int32_t> sites = f.ranks[r].sites;
    std::sort(sites.begin(), sites.end());
    by_sites[sites].push_back(r);
  }
  std::vector<const std::vector<int32_t>*> sites_of;
  for (const auto& [sites, ranks_of] : by_sites) sites_of.push_back(&sites);
  std::vector<size_t> program(sites_of.size());
  for (size_t i = 0; i < program.size(); ++i) program[i] = i;
  std::function<size_t(size_t)> find = [&](size_t i) { return program[i] == i ? i : program[i] = find(program[i]); };
  for (size_t i = 0; i < sites_of.size(); ++i) {
    for (size_t j = i + 1; j < sites_of.size(); ++j) {
      std::vector<int32_t> common;
      std::set_intersection(sites_of[i]->begin(), sites_of[i]->end(), sites_of[j]->begin(), sites_of[j]->end(),
                            std::back_inserter(common));
      const size_t all = sites_of[i]->size() + sites_of[j]->size() - common.size();
      if (all > 0 && 2 * common.size() >= all) program[find(j)] = find(i);
    }
  }
  // Each program keyed by its sites (stable from phase to phase of a cluster).
  std::map<size_t, std::pair<std::vector<int32_t>, std::vector<size_t>>> by_root;
  {
    size_t i = 0;
    for (const auto& [sites, ranks_of] : by_sites) {
      auto& [all_sites, all_ranks] = by_root[find(i++)];
      all_sites.insert(all_sites.end(), sites.begin(), sites.end());
      all_ranks.insert(all_ranks.end(), ranks_of.begin(), ranks_of.end());
    }
  }
  std::map<std::vector<int32_t>, std::vector<size_t>> programs;
  for (auto& [root, p] : by_root) {
    std::sort(p.first.begin(), p.first.end());
    p.first.erase(std::unique(p.first.begin(), p.first.end()), p.first.end());
    std::sort(p.second.begin(), p.second.end());
    if (p.second.size() >= 2) programs[p.first] = p.second;
  }
  if (programs.size() > 1) {
    ++mpmd_phases;
    for (const auto& [sites, ranks_of] : programs) {
      Group& g = groups[sites];
      if (g.members.size() < f.ranks.size()) g.members.resize(f.ranks.size());
      for (size_t r : ranks_of) g.members[r] = true;
      if (synchronized) {
        g.symptom += f.Symptom(ranks_of);
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
    if (c.busiest.size() < f.ranks.size()) c.busiest.resize(f.ranks.size());
    double sum = 0;
    size_t top = members[0];
    for (size_t r : members) {
      c.time[r] += static_cast<double>(ns[r]);
      sum += static_cast<double>(ns[r]);
      if (ns[r] > ns[top]) top = r;
    }
    const double excess = static_cast<double>(ns[top]) - sum / static_cast<double>(members.size());
    if (excess > 0) {
      c.phase_excess += excess;
      c.busiest[top] += 1;
    }
  }
}

int64_t Totals::ranks() const { return std::count(present.begin(), present.end(), true); }

std::vector<size_t> Totals::members() const {
  std::vector<size_t> out;
  for (size_t r = 0; r < present.size(); ++r) {
    if (present[r]) out.push_back(r);
  }
  return out;
}

int64_t Totals::compute_max() const {
  return compute.empty() ? 0 : *std::max_element(compute.begin(), compute.end());
}

int64_t Totals::compute_avg() const {
  int64_t sum = 0;
  for (size_t r = 0; r < compute.size(); ++r) sum += present[r] ? compute[r] : 0;
  return ranks() > 0 ? sum / ranks() : 0;
}

}  // namespace rp::diagnose
