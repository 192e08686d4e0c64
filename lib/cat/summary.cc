#include "lib/cat/summary.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "lib/mpi/functions.h"

namespace rp::cat {
namespace {

// Ranks a summary keeps a row for: more is not a trace of an MPI run.
constexpr int64_t kMostRanks = int64_t{1} << 24;

}  // namespace

Summary::Totals& Summary::RankTotals(int64_t rank) {
  if (static_cast<size_t>(rank) >= by_rank_.size()) {
    by_rank_.resize(rank + 1);
    spans_.resize(rank + 1);
  }
  return by_rank_[rank];
}

void Summary::Add(const trace::Record& record) {
  switch (record.type) {
    case trace::RecordType::kHeader:
      if (record.header.has_ranks()) ranks_ = record.header.ranks;
      return;
    case trace::RecordType::kRank:
      if (record.rank.has_rp()) rp_sampling_ += record.rank.rp;
      return;
    case trace::RecordType::kSample:
      ++samples_;
      return;
    case trace::RecordType::kMpi: {
      const trace::MpiRecord& m = record.mpi;
      ++calls_;
      const int64_t rp = m.has_rp() ? std::clamp<int64_t>(m.rp, 0, std::max<int64_t>(m.t1 - m.t0, 0)) : 0;
      const int32_t fn = mpi::FindFunction(m.fn);
      const mpi::Category category = fn >= 0 ? mpi::kFunctions[fn].category : mpi::Category::kPcontrol;
      const bool bound = category == mpi::Category::kInit || category == mpi::Category::kFinalize;
      if (!bound) {
        Totals& f = by_function_[m.fn];
        ++f.calls;
        f.ns += m.t1 - m.t0 - rp;
        f.bytes += m.has_bytes() ? m.bytes : 0;
        rp_calls_ += rp;
      }
      if (m.rank < 0 || m.rank >= kMostRanks) return;
      Totals& r = RankTotals(m.rank);
      RankSpan& span = spans_[m.rank];
      span.first = std::min(span.first, m.t0);
      span.last = std::max(span.last, m.t1);
      if (category == mpi::Category::kInit) {
        span.start = m.t1;
        span.init = std::max(span.init, m.t1 - m.t0 - rp);
        span.setup += rp;
      } else if (category == mpi::Category::kFinalize) {
        span.end = m.t0;
        span.finalize = std::max(span.finalize, m.t1 - m.t0 - rp);
        span.setup += rp;
      } else {
        ++r.calls;
        r.ns += m.t1 - m.t0 - rp;
      }
      return;
    }
    default:
      return;
  }
}

std::string Summary::Text() const {
  std::string out;
  char line[512];
  int64_t mpi_ns = 0, rank_ns = 0;
  for (const auto& [fn, t] : by_function_) mpi_ns += t.ns;
  int64_t first = INT64_MAX, last = INT64_MIN, init = 0, finalize = 0, setup = 0;
  bool bounded = false;  // MPI_Init and MPI_Finalize in the trace
  for (const RankSpan& s : spans_) {
    if (s.first == INT64_MAX) continue;
    first = std::min(first, s.begin());
    last = std::max(last, s.finish());
    if (s.finish() > s.begin()) rank_ns += s.finish() - s.begin();
    init = std::max(init, s.init);
    finalize = std::max(finalize, s.finalize);
    setup = std::max(setup, s.setup);
    bounded |= s.start != INT64_MIN || s.end != INT64_MIN;
  }
  const double span = last > first ? (last - first) / 1e9 : 0;
  std::snprintf(line, sizeof line, "%" PRId64 " ranks, %" PRId64 " MPI calls, %" PRId64 " samples, %.3f s %s\n",
                ranks_ > 0 ? ranks_ : static_cast<int64_t>(by_rank_.size()), calls_, samples_, span,
                bounded ? "of application time, from the first return from MPI_Init to the last call of MPI_Finalize"
                        : "from first to last call");
  out += line;
  if (calls_ == 0) return out;
  std::snprintf(line, sizeof line, "MPI time: %.3f s, %.1f%% of the ranks' time %s\n", mpi_ns / 1e9,
                rank_ns > 0 ? 100.0 * mpi_ns / rank_ns : 0.0,
                bounded ? "between their MPI_Init and MPI_Finalize" : "between their first and last call");
  out += line;
  if (bounded) {
    std::snprintf(line, sizeof line,
                  "outside it: MPI_Init up to %.3f s, MPI_Finalize up to %.3f s (their MPI part, the longest rank's)\n",
                  init / 1e9, finalize / 1e9);
    out += line;
  }
  if (setup + rp_calls_ + rp_sampling_ > 0) {
    std::snprintf(line, sizeof line,
                  "rp's own work: set-up and tear-down up to %.3f ms a rank, %.3f ms in calls and %.3f ms taking "
                  "samples over all ranks (none of it in the MPI times)\n",
                  setup / 1e6, rp_calls_ / 1e6, rp_sampling_ / 1e6);
    out += line;
  }
  out += "\n";

  std::vector<std::pair<std::string, Totals>> functions(by_function_.begin(), by_function_.end());
  std::stable_sort(functions.begin(), functions.end(),
                   [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  out += "function                  calls     time s   % MPI      MB\n";
  for (const auto& [fn, t] : functions) {
    std::snprintf(line, sizeof line, "%-22s %8" PRId64 " %10.4f %7.1f %7.1f\n", fn.c_str(), t.calls, t.ns / 1e9,
                  mpi_ns > 0 ? 100.0 * t.ns / mpi_ns : 0.0, t.bytes / 1e6);
    out += line;
  }
  out += "\nrank    calls   MPI s   % of rank time\n";
  for (size_t r = 0; r < by_rank_.size(); ++r) {
    const RankSpan& s = spans_[r];
    const int64_t lifetime = s.first != INT64_MAX && s.finish() > s.begin() ? s.finish() - s.begin() : 0;
    std::snprintf(line, sizeof line, "%4zu %8" PRId64 " %7.3f %8.1f\n", r, by_rank_[r].calls, by_rank_[r].ns / 1e9,
                  lifetime > 0 ? 100.0 * by_rank_[r].ns / lifetime : 0.0);
    out += line;
  }
  return out;
}

}  // namespace rp::cat
