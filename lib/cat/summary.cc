#include "lib/cat/summary.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace rp::cat {

void Summary::Add(const trace::Record& record) {
  switch (record.type) {
    case trace::RecordType::kHeader:
      if (record.header.has_ranks()) ranks_ = record.header.ranks;
      return;
    case trace::RecordType::kSample:
      ++samples_;
      return;
    case trace::RecordType::kMpi: {
      const trace::MpiRecord& m = record.mpi;
      Totals& f = by_function_[m.fn];
      ++f.calls;
      f.ns += m.t1 - m.t0;
      f.bytes += m.has_bytes() ? m.bytes : 0;
      if (m.rank < 0 || m.rank >= (int64_t{1} << 24)) return;
      if (static_cast<size_t>(m.rank) >= by_rank_.size()) {
        by_rank_.resize(m.rank + 1);
        rank_span_.resize(m.rank + 1, {INT64_MAX, INT64_MIN});
      }
      Totals& r = by_rank_[m.rank];
      ++r.calls;
      r.ns += m.t1 - m.t0;
      rank_span_[m.rank].first = std::min(rank_span_[m.rank].first, m.t0);
      rank_span_[m.rank].second = std::max(rank_span_[m.rank].second, m.t1);
      first_ = std::min(first_, m.t0);
      last_ = std::max(last_, m.t1);
      return;
    }
    default:
      return;
  }
}

std::string Summary::Text() const {
  std::string out;
  char line[256];
  int64_t calls = 0, mpi_ns = 0, rank_ns = 0;
  for (const auto& [fn, t] : by_function_) {
    calls += t.calls;
    mpi_ns += t.ns;
  }
  for (const auto& [first, last] : rank_span_) {
    if (last > first) rank_ns += last - first;
  }
  const double span = last_ > first_ ? (last_ - first_) / 1e9 : 0;
  std::snprintf(line, sizeof line,
                "%" PRId64 " ranks, %" PRId64 " MPI calls, %" PRId64 " samples, %.3f s from first to last call\n",
                ranks_ > 0 ? ranks_ : static_cast<int64_t>(by_rank_.size()), calls, samples_, span);
  out += line;
  if (calls == 0) return out;
  std::snprintf(line, sizeof line, "MPI time: %.3f s, %.1f%% of the ranks' time between their first and last call\n\n",
                mpi_ns / 1e9, rank_ns > 0 ? 100.0 * mpi_ns / rank_ns : 0.0);
  out += line;

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
    const auto& [first, last] = rank_span_[r];
    const int64_t lifetime = last > first ? last - first : 0;
    std::snprintf(line, sizeof line, "%4zu %8" PRId64 " %7.3f %8.1f\n", r, by_rank_[r].calls, by_rank_[r].ns / 1e9,
                  lifetime > 0 ? 100.0 * by_rank_[r].ns / lifetime : 0.0);
    out += line;
  }
  return out;
}

}  // namespace rp::cat
