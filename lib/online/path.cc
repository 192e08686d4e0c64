#include "lib/online/path.h"

#include <algorithm>
#include <cstring>

namespace rp::online {
namespace {

constexpr uint16_t kVersion = 3;

// Little-endian fields of the wire record (every machine this runs on is
// little-endian; memcpy keeps it free of alignment assumptions).
template <typename T>
void Put(uint8_t* at, T v) {
  std::memcpy(at, &v, sizeof v);
}
template <typename T>
T Get(const uint8_t* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

// Header layout: version u16, sites u16, end rank i32, region i32, ranks
// u16, 2 bytes unused, t, compute, mpi, other compute, other mpi (i64
// each) = 56 bytes; then the sites (key u64, compute, mpi), then the ranks
// (rank i32, ns i64).
int64_t WireLength(const uint8_t* p) { return Get<int64_t>(p + 24) + Get<int64_t>(p + 32); }
int32_t WireRegion(const uint8_t* p) { return Get<int32_t>(p + 8); }

}  // namespace

SiteShare& Path::Share(uint64_t site) {
  if (last_ < sites_.size() && sites_[last_].site == site) return sites_[last_];
  for (size_t i = 0; i < sites_.size(); ++i) {
    if (sites_[i].site == site) return sites_[last_ = i];
  }
  if (sites_.size() < kSites) {
    sites_.push_back(SiteShare{site});
    return sites_[last_ = sites_.size() - 1];
  }
  // Full: the lightest site gives way, its time summed apart.
  size_t lightest = 0;
  for (size_t i = 1; i < sites_.size(); ++i) {
    if (sites_[i].total() < sites_[lightest].total()) lightest = i;
  }
  other_compute_ += sites_[lightest].compute;
  other_mpi_ += sites_[lightest].mpi;
  sites_[lightest] = SiteShare{site};
  return sites_[last_ = lightest];
}

void Path::OnRank(int64_t ns) {
  if (end_rank_ < 0) return;
  if (last_rank_ < ranks_.size() && ranks_[last_rank_].rank == end_rank_) {
    ranks_[last_rank_].ns += ns;
    return;
  }
  for (size_t i = 0; i < ranks_.size(); ++i) {
    if (ranks_[i].rank == end_rank_) {
      ranks_[last_rank_ = i].ns += ns;
      return;
    }
  }
  if (ranks_.size() < kRanks) {
    ranks_.push_back(RankShare{end_rank_, ns});
    last_rank_ = ranks_.size() - 1;
    return;
  }
  // Full: the lightest rank gives way (its time stays in the length).
  size_t lightest = 0;
  for (size_t i = 1; i < ranks_.size(); ++i) {
    if (ranks_[i].ns < ranks_[lightest].ns) lightest = i;
  }
  ranks_[lightest] = RankShare{end_rank_, ns};
  last_rank_ = lightest;
}

size_t Path::Encode(std::span<uint8_t> out, int64_t t) const {
  const size_t bytes = WireBytes();
  if (out.size() < bytes) return 0;
  uint8_t* p = out.data();
  Put<uint16_t>(p, kVersion);
  Put<uint16_t>(p + 2, static_cast<uint16_t>(sites_.size()));
  Put<int32_t>(p + 4, end_rank_);
  Put<int32_t>(p + 8, region_);
  Put<uint16_t>(p + 12, static_cast<uint16_t>(ranks_.size()));
  Put<uint16_t>(p + 14, 0);
  Put<int64_t>(p + 16, t);
  Put<int64_t>(p + 24, compute_);
  Put<int64_t>(p + 32, mpi_);
  Put<int64_t>(p + 40, other_compute_);
  Put<int64_t>(p + 48, other_mpi_);
  p += kHeaderBytes;
  for (const SiteShare& s : sites_) {
    Put<uint64_t>(p, s.site);
    Put<int64_t>(p + 8, s.compute);
    Put<int64_t>(p + 16, s.mpi);
    p += kSiteBytes;
  }
  for (const RankShare& r : ranks_) {
    Put<int32_t>(p, r.rank);
    Put<int64_t>(p + 4, r.ns);
    p += kRankBytes;
  }
  return bytes;
}

bool Path::Decode(std::span<const uint8_t> in, Path* path, int64_t* t) {
  if (in.size() < kHeaderBytes) return false;
  const uint8_t* p = in.data();
  const size_t n = Get<uint16_t>(p + 2), n_ranks = Get<uint16_t>(p + 12);
  if (Get<uint16_t>(p) != kVersion || n > kSites || n_ranks > kRanks ||
      in.size() < kHeaderBytes + n * kSiteBytes + n_ranks * kRankBytes) {
    return false;
  }
  path->end_rank_ = Get<int32_t>(p + 4);
  path->region_ = Get<int32_t>(p + 8);
  *t = Get<int64_t>(p + 16);
  path->compute_ = Get<int64_t>(p + 24);
  path->mpi_ = Get<int64_t>(p + 32);
  path->other_compute_ = Get<int64_t>(p + 40);
  path->other_mpi_ = Get<int64_t>(p + 48);
  path->sites_.resize(n);
  path->last_ = 0;
  p += kHeaderBytes;
  for (SiteShare& s : path->sites_) {
    s.site = Get<uint64_t>(p);
    s.compute = Get<int64_t>(p + 8);
    s.mpi = Get<int64_t>(p + 16);
    p += kSiteBytes;
  }
  path->ranks_.resize(n_ranks);
  path->last_rank_ = 0;
  for (RankShare& r : path->ranks_) {
    r.rank = Get<int32_t>(p);
    r.ns = Get<int64_t>(p + 4);
    p += kRankBytes;
  }
  return true;
}

Path AtExit(const Entry& own, std::span<const Entry> partners, int64_t exit, uint64_t site, int32_t rank) {
  Path out = own.path;
  std::vector<Entry> copies(partners.begin(), partners.end());
  ExitInPlace(&out, own.t, copies, exit, site, rank);
  return out;
}

void ExitInPlace(Path* path, int64_t entry, std::span<Entry> partners, int64_t exit, uint64_t site, int32_t rank) {
  Entry* longest = nullptr;
  int64_t ready = entry, best = path->length();
  int32_t region = path->region();
  for (Entry& e : partners) {
    if (e.path.length() > best) longest = &e, best = e.path.length();
    ready = std::max(ready, e.t);
    region = std::max(region, e.path.region());
  }
  if (longest != nullptr) std::swap(*path, longest->path);
  // A partner in a later region brought its start or stop marker: the
  // call's time after the last entry counts if that region is measured.
  path->set_region(region);
  path->set_end_rank(rank);
  // Clocks agree only to their offsets' error: a partner that seems to
  // have entered after the exit adds nothing.
  path->AddMpi(site, std::max<int64_t>(0, exit - ready));
}

void CombineWire(const uint8_t* in, uint8_t* inout) {
  const int64_t t = std::max(Get<int64_t>(in + 16), Get<int64_t>(inout + 16));
  const int32_t region = std::max(WireRegion(in), WireRegion(inout));
  if (WireLength(in) > WireLength(inout)) {
    const size_t n = std::min<size_t>(Get<uint16_t>(in + 2), Path::kSites);
    const size_t n_ranks = std::min<size_t>(Get<uint16_t>(in + 12), Path::kRanks);
    std::memcpy(inout, in, Path::kHeaderBytes + n * Path::kSiteBytes + n_ranks * Path::kRankBytes);
  }
  Put<int64_t>(inout + 16, t);
  Put<int32_t>(inout + 8, region);
}

}  // namespace rp::online
