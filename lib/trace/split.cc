#include "lib/trace/split.h"

#include <algorithm>

namespace rp::trace {

std::vector<RankGroup> BalancedGroups(const std::vector<int64_t>& weights, int n) {
  const int64_t ranks = static_cast<int64_t>(weights.size());
  n = static_cast<int>(std::clamp<int64_t>(n, 1, std::max<int64_t>(ranks, 1)));
  std::vector<int64_t> cumulative(weights);
  for (int64_t r = 1; r < ranks; ++r) cumulative[r] += cumulative[r - 1];
  const int64_t total = ranks > 0 ? cumulative.back() : 0;
  std::vector<RankGroup> groups;
  int64_t first = 0;
  for (int k = 0; k < n; ++k) {
    int64_t last = std::max<int64_t>(ranks - 1, 0);
    if (k + 1 < n) {
      // The first rank where the weight so far reaches k+1 n-ths, leaving
      // a rank for each group after this one.
      const auto target = static_cast<int64_t>(static_cast<__int128>(total) * (k + 1) / n);
      last = first;
      while (last < ranks - (n - k) && cumulative[last] < target) ++last;
    }
    groups.push_back({first, last});
    first = last + 1;
  }
  return groups;
}

std::string PartPath(const std::string& index, int k, int n) {
  const size_t slash = index.rfind('/');
  const size_t name = slash == std::string::npos ? 0 : slash + 1;
  std::string stem = index, suffix;
  for (const std::string ending : {".ndjson.zst", ".ndjson", ".zst"}) {
    if (index.size() - name > ending.size() && index.compare(index.size() - ending.size(), ending.size(), ending) == 0) {
      stem = index.substr(0, index.size() - ending.size());
      suffix = ending;
      break;
    }
  }
  const std::string number = std::to_string(k);
  const size_t width = std::to_string(std::max(n - 1, 0)).size();
  return stem + ".part" + std::string(width > number.size() ? width - number.size() : 0, '0') + number + suffix;
}

SplitWriter::SplitWriter(std::vector<Part> parts) : parts_(std::move(parts)), extents_(parts_.size()) {
  for (size_t k = 0; k < parts_.size(); ++k) {
    const RankGroup& g = parts_[k].ranks;
    if (g.last >= static_cast<int64_t>(part_of_.size())) part_of_.resize(g.last + 1, UINT32_MAX);
    for (int64_t r = std::max<int64_t>(g.first, 0); r <= g.last; ++r) part_of_[r] = static_cast<uint32_t>(k);
  }
}

PartRecord PartRecordOf(const std::string& path, const RankGroup& ranks, int64_t records, int64_t t0, int64_t t1) {
  PartRecord record;
  record.set_file(path.substr(path.rfind('/') + 1));
  record.set_first_rank(ranks.first);
  record.set_last_rank(ranks.last);
  record.set_records(records);
  if (records > 0) {
    record.set_t0(t0);
    record.set_t1(t1);
  }
  return record;
}

Expected<std::unique_ptr<SplitWriter>> SplitWriter::Open(const std::string& index,
                                                         const std::vector<RankGroup>& groups, const PartOpener& open,
                                                         std::string_view header_line) {
  std::vector<Part> parts;
  for (size_t k = 0; k < groups.size(); ++k) {
    Part part;
    part.path = PartPath(index, static_cast<int>(k), static_cast<int>(groups.size()));
    RP_ASSIGN_OR_RETURN(part.writer, open(part.path));
    RP_RETURN_IF_ERROR(part.writer->WriteRaw(header_line));
    part.ranks = groups[k];
    parts.push_back(std::move(part));
  }
  return std::make_unique<SplitWriter>(std::move(parts));
}

Expected<Writer*> SplitWriter::For(int64_t rank, int64_t time) {
  if (rank < 0 || rank >= static_cast<int64_t>(part_of_.size()) || part_of_[rank] == UINT32_MAX) {
    return InputError("rank " + std::to_string(rank) + " is in no part of the split");
  }
  const uint32_t k = part_of_[rank];
  last_ = k;
  Extent& e = extents_[k];
  ++e.records;
  e.t0 = std::min(e.t0, time);
  e.t1 = std::max(e.t1, time);
  return parts_[k].writer.get();
}

Writer* SplitWriter::After() {
  if (last_ == UINT32_MAX) return nullptr;
  ++extents_[last_].records;
  return parts_[last_].writer.get();
}

Status SplitWriter::Finish(Writer& index) {
  for (Part& part : parts_) RP_RETURN_IF_ERROR(part.writer->Close());
  for (size_t k = 0; k < parts_.size(); ++k) {
    const Extent& e = extents_[k];
    RP_RETURN_IF_ERROR(index.Write(PartRecordOf(parts_[k].path, parts_[k].ranks, e.records, e.t0, e.t1)));
  }
  return OkStatus();
}

}  // namespace rp::trace
