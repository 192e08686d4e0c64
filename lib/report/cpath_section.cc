#include "lib/report/cpath_section.h"

#include <algorithm>
#include <cstdio>

#include "lib/report/format.h"

namespace rp::report {
namespace {

double Share(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / whole : 0.0; }

// A table's duration; "-" for none, which reads faster than "0 ns".
std::string Amount(int64_t ns) { return ns == 0 ? "-" : Duration(ns); }

// At most this many rows of each table.
constexpr size_t kProfileRows = 20, kZeroingRows = 10, kRankShares = 8, kWaitingRanks = 5;

}  // namespace

// What both formats show, worked out once.
struct CriticalPathSection::View {
  std::string algo;
  int64_t length = 0, run_time = 0, end_rank = -1;
  int64_t regions = 0;  // online, in MPI_Pcontrol regions (0: the whole run)
  // The run's time is the application's, between MPI_Init and MPI_Finalize
  // (the trace has them); outside it, and the collector's own work.
  bool application = false;
  int64_t init = 0, finalize = 0, rp_setup = 0, rp_all = 0, rp = 0;
  bool partial = false;
  double compute = 0, mpi = 0, transfer = 0;  // shares of the length
  int64_t wait = 0;                           // ns, not in the length
  std::vector<std::pair<int64_t, double>> carriers;  // rank, share
  struct ProfileRow {
    double cp_share, time_share;
    int64_t cp, time, calls;
    std::string call, where;
  };
  std::vector<ProfileRow> profile;
  // Functions: computation by the samples (or the call ending it), MPI by
  // the calls they make.
  int64_t samples = 0;
  double by_samples = 0, by_nearest = 0, by_site = 0;  // of the path's computation
  struct FunctionRow {
    double cp_share, time_share;
    int64_t cp_compute, cp_mpi, time_compute, time_mpi;
    std::string name;
  };
  std::vector<FunctionRow> functions;
  bool zeroing = false;
  struct ZeroingRow {
    std::string what;
    int64_t length, reduction;
    double share;
  };
  std::vector<ZeroingRow> zeroings;
  double program_imbalance = 0;
  struct WaitRow {
    int64_t rank, waits;
    double share;
  };
  std::vector<WaitRow> waiting;
};

void CriticalPathSection::Add(const trace::Record& record) {
  switch (record.type) {
    case trace::RecordType::kCpSummary:
      // A run's records follow its summary: a stream analysed twice (or two
      // streams) shows the last run, not a mixture.
      if (!record.cp_summary.has_phase()) {
        *this = CriticalPathSection();
        summary_ = record.cp_summary;
      }
      break;
    case trace::RecordType::kCpProfile: {
      const trace::CpProfileRecord& p = record.cp_profile;
      if (p.has_phase()) break;
      if (p.scope == "function") functions_.push_back(p);
      if (p.scope != "site") break;
      if (p.has_site()) site_index_[p.site] = sites_.size();
      sites_.push_back(p);
      break;
    }
    case trace::RecordType::kCpZeroing:
      zeroings_.push_back(record.cp_zeroing);
      break;
    case trace::RecordType::kCpImbalance: {
      const trace::CpImbalanceRecord& i = record.cp_imbalance;
      if (i.has_phase()) break;
      if (i.scope == "program") program_ = i;
      if (i.scope == "process") processes_.push_back(i);
      break;
    }
    default:
      break;
  }
}

std::string CriticalPathSection::Where(int64_t site) const {
  auto it = site_index_.find(site);
  if (it == site_index_.end()) return "site " + std::to_string(site);
  const trace::CpProfileRecord& p = sites_[it->second];
  if (!p.has_fn() && !p.has_file()) return "site " + std::to_string(site);
  std::string where = p.has_fn() ? p.fn : "?";
  if (p.has_file()) {
    where += " " + std::string(BaseName(p.file));
    if (p.has_line()) where += ":" + std::to_string(p.line);
  }
  return where;
}

CriticalPathSection::View CriticalPathSection::Prepare() const {
  View v;
  const trace::CpSummaryRecord& s = *summary_;
  v.algo = s.algo;
  v.length = s.length;
  v.run_time = s.run_time;
  v.regions = s.has_regions() ? s.regions : 0;
  v.end_rank = s.has_end_rank() ? s.end_rank : -1;
  v.partial = s.has_partial() && s.partial;
  v.compute = Share(s.compute, s.length);
  v.mpi = Share(s.mpi, s.length);
  v.transfer = Share(s.transfer, s.length);
  v.wait = s.wait;
  v.application = (s.has_init() && s.init > 0) || (s.has_finalize() && s.finalize > 0);
  v.init = s.has_init() ? s.init : 0;
  v.finalize = s.has_finalize() ? s.finalize : 0;
  v.rp_setup = s.has_rp_setup() ? s.rp_setup : 0;
  v.rp_all = s.has_rp_all() ? s.rp_all : 0;
  v.rp = s.has_rp() ? s.rp : 0;
  std::vector<int64_t> ranks;
  for (size_t r = 0; r < s.rank_share.size(); ++r) ranks.push_back(static_cast<int64_t>(r));
  std::stable_sort(ranks.begin(), ranks.end(), [&](int64_t a, int64_t b) { return s.rank_share[a] > s.rank_share[b]; });
  for (size_t i = 0; i < ranks.size() && i < kRankShares && s.rank_share[ranks[i]] > 0; ++i) {
    v.carriers.emplace_back(ranks[i], s.rank_share[ranks[i]]);
  }
  v.samples = s.has_samples() ? s.samples : 0;
  const int64_t attributed = s.compute_sampled + s.compute_nearest + s.compute_by_site;
  v.by_samples = Share(s.compute_sampled, attributed);
  v.by_nearest = Share(s.compute_nearest, attributed);
  v.by_site = Share(s.compute_by_site, attributed);
  for (size_t i = 0; i < functions_.size() && i < kProfileRows; ++i) {
    const trace::CpProfileRecord& p = functions_[i];
    v.functions.push_back({p.cp_share, p.time_share, p.cp_compute, p.cp_mpi, p.time_compute, p.time_mpi,
                           ShortFunction(p.has_fn() ? p.fn : "?")});
  }
  for (size_t i = 0; i < sites_.size() && i < kProfileRows; ++i) {
    const trace::CpProfileRecord& p = sites_[i];
    v.profile.push_back({p.cp_share, p.time_share, p.cp, p.time, p.calls, p.has_call() ? p.call : "?",
                         p.has_site() ? Where(p.site) : "(no site)"});
  }
  v.zeroing = !zeroings_.empty();
  for (size_t i = 0; i < zeroings_.size() && i < kZeroingRows; ++i) {
    const trace::CpZeroingRecord& z = zeroings_[i];
    if (z.reduction <= 0) break;
    std::string what;
    if (z.kind == "function") {
      what = "function " + ShortFunction(z.has_fn() ? z.fn : "?");
    } else {
      what = std::string(z.kind == "compute" ? "computation before " : "") + (z.has_call() ? z.call : "?") + " at " +
             (z.has_site() ? Where(z.site) : "(no site)");
    }
    v.zeroings.push_back({what, z.length, z.reduction, Share(z.reduction, s.length)});
  }
  if (program_) {
    v.program_imbalance = Share(program_->wait_before + program_->wait_after, program_->execution + program_->compute);
  }
  std::vector<const trace::CpImbalanceRecord*> by_wait;
  for (const trace::CpImbalanceRecord& p : processes_) by_wait.push_back(&p);
  auto waits = [](const trace::CpImbalanceRecord* p) { return p->wait_before + p->wait_after; };
  std::stable_sort(by_wait.begin(), by_wait.end(), [&](auto* a, auto* b) { return waits(a) > waits(b); });
  for (size_t i = 0; i < by_wait.size() && i < kWaitingRanks; ++i) {
    const trace::CpImbalanceRecord& p = *by_wait[i];
    v.waiting.push_back({p.rank, waits(&p), Share(waits(&p), p.execution + p.compute)});
  }
  return v;
}

std::string CriticalPathSection::FunctionsTitle(const View& v) {
  if (v.samples == 0) {
    return "functions on the critical path (the trace has no samples: each computation counts for the "
           "function calling the MPI call that ends it; record with rp-record --sample-hz 200 to name the "
           "functions that compute)";
  }
  return "functions on the critical path (computation named by " + std::to_string(v.samples) +
         " samples: " + Trim(Percent(v.by_samples)) + " of the path's computation by the samples inside it, " +
         Trim(Percent(v.by_nearest)) + (v.algo == "online" ? " by the rank's last sample, " : " by the rank's nearest sample, ") +
         Trim(Percent(v.by_site)) +
         " by the call ending it)";
}

namespace {
// What the path's length is a share of.
std::string TheRun(int64_t run_time, int64_t regions, bool application) {
  if (regions > 0) return "the " + Duration(run_time) + " measured in " + std::to_string(regions) + " MPI_Pcontrol regions";
  if (application) return "the application's " + Duration(run_time) + " between MPI_Init and MPI_Finalize";
  return "a " + Duration(run_time) + " run";
}
}  // namespace

void CriticalPathSection::Text(std::string* out) const {
  const View v = Prepare();
  auto line = [&](const std::string& s) { *out += s + "\n"; };
  const std::string of = " of " + TheRun(v.run_time, v.regions, v.application) + " (";
  line("critical path (" + v.algo + "): " + Duration(v.length) + of + Percent(Share(v.length, v.run_time)) +
       "), ending on rank " + std::to_string(v.end_rank) + (v.partial ? "  [partial: see the warnings]" : ""));
  if (v.application) {
    line("  outside it: MPI_Init up to " + Duration(v.init) + ", MPI_Finalize up to " + Duration(v.finalize) +
         "; rp's own work: set-up and tear-down " + Duration(v.rp_setup) + ", in calls " + Duration(v.rp_all) +
         " (all ranks), " + Duration(v.rp) + " on the path");
  }
  line("  on the path: compute " + Percent(v.compute) + ", mpi " + Percent(v.mpi) + ", transfer " +
       Percent(v.transfer) + "; unexplained wait " + Duration(v.wait));
  std::string carriers = "  ranks carrying it:";
  for (const auto& [rank, share] : v.carriers) carriers += " " + std::to_string(rank) + " " + Percent(share);
  line(carriers);
  line("");
  // Streams written before rp-cpath named functions have no function rows.
  if (!v.functions.empty()) {
    line(FunctionsTitle(v) + ":");
    line("   CP%    computation            MPI  time%    computation            MPI  function");
    for (const View::FunctionRow& r : v.functions) {
      char buf[512];
      std::snprintf(buf, sizeof buf, "%s %14s %14s %s %14s %14s  %s", Percent(r.cp_share).c_str(),
                    Amount(r.cp_compute).c_str(), Amount(r.cp_mpi).c_str(), Percent(r.time_share).c_str(),
                    Amount(r.time_compute).c_str(), Amount(r.time_mpi).c_str(), r.name.c_str());
      line(buf);
    }
    line("");
    line("MPI call sites (the computation leading to each call counts for it):");
  }
  line("   CP%  time%   on path        all ranks      calls  call at site");
  for (const View::ProfileRow& r : v.profile) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s %s %14s %14s %8lld  %s at %s", Percent(r.cp_share).c_str(),
                  Percent(r.time_share).c_str(), Duration(r.cp).c_str(), Duration(r.time).c_str(),
                  static_cast<long long>(r.calls), r.call.c_str(), r.where.c_str());
    line(buf);
  }
  if (v.zeroing) {
    line("");
    line("what if it took no time (critical path zeroing):");
    for (const View::ZeroingRow& z : v.zeroings) {
      line("  " + z.what + ": " + Duration(z.length) + " (-" + Duration(z.reduction) + ", " + Percent(z.share) + ")");
    }
  }
  line("");
  line("imbalance (waiting / (execution + computation)): program " + Percent(v.program_imbalance));
  for (const View::WaitRow& w : v.waiting) {
    line("  rank " + std::to_string(w.rank) + " waits " + Duration(w.waits) + " (" + Percent(w.share) + ")");
  }
}

namespace {

// A table cell: a Markdown pipe in a value must not end the cell.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void CriticalPathSection::Markdown(std::string* out) const {
  const View v = Prepare();
  auto line = [&](const std::string& s) { *out += s + "\n"; };
  line("## Critical path (" + v.algo + ")");
  line("");
  line("**" + Duration(v.length) + "** of " + TheRun(v.run_time, v.regions, v.application) + " (" +
       Trim(Percent(Share(v.length, v.run_time))) + "), ending on rank " + std::to_string(v.end_rank) + "." +
       (v.partial ? " *Partial: the trace misses dependencies (see the tool's warnings).*" : ""));
  if (v.application) {
    line("");
    line("Outside it: MPI_Init up to " + Duration(v.init) + ", MPI_Finalize up to " + Duration(v.finalize) +
         ". rp's own work: set-up and tear-down " + Duration(v.rp_setup) + ", in calls " + Duration(v.rp_all) +
         " (all ranks), " + Duration(v.rp) + " on the path; none of it is in the times above.");
  }
  line("");
  line("| on the path | share |");
  line("|---|---:|");
  line("| compute | " + Trim(Percent(v.compute)) + " |");
  line("| mpi | " + Trim(Percent(v.mpi)) + " |");
  line("| transfer | " + Trim(Percent(v.transfer)) + " |");
  line("| unexplained wait (not in the length) | " + Duration(v.wait) + " |");
  line("");
  std::string carriers;
  for (const auto& [rank, share] : v.carriers) {
    carriers += (carriers.empty() ? "" : ", ") + std::string("rank ") + std::to_string(rank) + " " +
                Trim(Percent(share));
  }
  line("Ranks carrying it: " + (carriers.empty() ? std::string("none") : carriers) + ".");
  line("");
  if (!v.functions.empty()) {
    line("### Functions on the critical path");
    line("");
    line(FunctionsTitle(v) + ".");
    line("");
    line("| CP% | computation | MPI | time% | computation | MPI | function |");
    line("|---:|---:|---:|---:|---:|---:|---|");
    for (const View::FunctionRow& r : v.functions) {
      line("| " + Trim(Percent(r.cp_share)) + " | " + Amount(r.cp_compute) + " | " + Amount(r.cp_mpi) + " | " +
           Trim(Percent(r.time_share)) + " | " + Amount(r.time_compute) + " | " + Amount(r.time_mpi) + " | " +
           Cell(r.name) + " |");
    }
    line("");
  }
  line("### Call sites on the critical path");
  line("");
  line("The computation leading to each call counts for it.");
  line("");
  line("| CP% | time% | on path | all ranks | calls | call | site |");
  line("|---:|---:|---:|---:|---:|---|---|");
  for (const View::ProfileRow& r : v.profile) {
    line("| " + Trim(Percent(r.cp_share)) + " | " + Trim(Percent(r.time_share)) + " | " + Duration(r.cp) + " | " +
         Duration(r.time) + " | " + std::to_string(r.calls) + " | " + Cell(r.call) + " | " + Cell(r.where) + " |");
  }
  if (v.zeroing) {
    line("");
    line("### What if it took no time (critical path zeroing)");
    line("");
    line("| what | critical path | shorter by | share |");
    line("|---|---:|---:|---:|");
    for (const View::ZeroingRow& z : v.zeroings) {
      line("| " + Cell(z.what) + " | " +
           Duration(z.length) + " | " + Duration(z.reduction) + " | " + Trim(Percent(z.share)) + " |");
    }
  }
  line("");
  line("### Imbalance");
  line("");
  line("Waiting / (execution + computation), whole program: " + Trim(Percent(v.program_imbalance)) + ".");
  line("");
  line("| rank | waits | share |");
  line("|---:|---:|---:|");
  for (const View::WaitRow& w : v.waiting) {
    line("| " + std::to_string(w.rank) + " | " + Duration(w.waits) + " | " + Trim(Percent(w.share)) + " |");
  }
}

}  // namespace rp::report
