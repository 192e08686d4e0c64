#include "lib/online/path.h"

#include <algorithm>
#include <cstring>

#include "lib/online/keep_heaviest.h"
#include "lib/online/wire.h"

namespace rp::online {
namespace {

constexpr uint16_t kVersion = 5;
constexpr uint16_t kHasReductions = 1;  // flags: sites carry their reductions

using wire::Get;
using wire::Put;

// Header layout: version u16, sites u16, end rank i32, region i32, ranks
// u16, flags u16, t, compute, mpi, other compute, other mpi (i64 each),
// functions u16, contexts u16, 4 bytes unused, computation named by
// samples, by last sample, by call site (i64 each) = 88 bytes; then the
// sites (key u64, compute, mpi, and with kHasReductions reduction compute,
// reduction mpi), the functions (key u64, ns i64, and reduction i64), the
// contexts (key u64, ns i64), then the ranks (rank i32, ns i64).
int64_t WireLength(const uint8_t* p) { return Get<int64_t>(p + 24) + Get<int64_t>(p + 32); }
int32_t WireRegion(const uint8_t* p) { return Get<int32_t>(p + 8); }
// The record's bytes, from its header (counts clamped to the limits).
size_t WireRecordBytes(const uint8_t* p) {
  const size_t n = std::min<size_t>(Get<uint16_t>(p + 2), Path::kSites);
  const size_t n_ranks = std::min<size_t>(Get<uint16_t>(p + 12), Path::kRanks);
  const size_t n_functions = std::min<size_t>(Get<uint16_t>(p + 56), Path::kFunctions);
  const size_t n_contexts = std::min<size_t>(Get<uint16_t>(p + 58), Path::kContexts);
  const size_t site_bytes = (Get<uint16_t>(p + 14) & kHasReductions) != 0 ? Path::kZeroingSiteBytes : Path::kSiteBytes;
  const size_t function_bytes =
      (Get<uint16_t>(p + 14) & kHasReductions) != 0 ? Path::kZeroingFunctionBytes : Path::kFunctionBytes;
  return Path::kHeaderBytes + n * site_bytes + n_functions * function_bytes + n_contexts * Path::kContextBytes +
         n_ranks * Path::kRankBytes;
}

}  // namespace

SiteShare& Path::Share(uint64_t site) {
  // Full: the lightest site's time is summed apart.
  return FindOrAdd(
      sites_, last_, site_limit_, SiteShare{site}, [site](const SiteShare& s) { return s.site == site; },
      [](const SiteShare& s) { return s.total(); },
      [this](const SiteShare& s) { other_compute_ += s.compute, other_mpi_ += s.mpi; });
}

void Path::AddFunction(uint64_t function, int64_t ns, NamedBy by) {
  if (!measuring() || function_limit_ == 0) return;
  named_[static_cast<int>(by)] += ns;
  // Full: the lightest function's time stays in compute() only.
  FunctionShare& f = FindOrAdd(
      functions_, last_function_, function_limit_, FunctionShare{function},
      [function](const FunctionShare& f) { return f.function == function; },
      [](const FunctionShare& f) { return f.ns; }, [](const FunctionShare&) {});
  f.ns += ns;
  f.reduction += ns;
}

void Path::AddContext(uint64_t context, int64_t ns) {
  if (!measuring() || context_limit_ == 0) return;
  FindOrAdd(
      contexts_, last_context_, context_limit_, ContextShare{context},
      [context](const ContextShare& c) { return c.context == context; }, [](const ContextShare& c) { return c.ns; },
      [](const ContextShare&) {})
      .ns += ns;
}

void Path::OnRank(int64_t ns) {
  if (end_rank_ < 0) return;
  // Full: the lightest rank's time stays in the length only.
  const int32_t rank = end_rank_;
  FindOrAdd(
      ranks_, last_rank_, kRanks, RankShare{rank}, [rank](const RankShare& r) { return r.rank == rank; },
      [](const RankShare& r) { return r.ns; }, [](const RankShare&) {})
      .ns += ns;
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
  Put<uint16_t>(p + 14, reductions_ ? kHasReductions : 0);
  Put<int64_t>(p + 16, t);
  Put<int64_t>(p + 24, compute_);
  Put<int64_t>(p + 32, mpi_);
  Put<int64_t>(p + 40, other_compute_);
  Put<int64_t>(p + 48, other_mpi_);
  Put<uint16_t>(p + 56, static_cast<uint16_t>(functions_.size()));
  Put<uint16_t>(p + 58, static_cast<uint16_t>(contexts_.size()));
  std::memset(p + 60, 0, 4);
  for (int i = 0; i < 3; ++i) Put<int64_t>(p + 64 + 8 * i, named_[i]);
  p += kHeaderBytes;
  for (const SiteShare& s : sites_) {
    Put<uint64_t>(p, s.site);
    Put<int64_t>(p + 8, s.compute);
    Put<int64_t>(p + 16, s.mpi);
    if (reductions_) {
      Put<int64_t>(p + 24, s.reduction_compute);
      Put<int64_t>(p + 32, s.reduction_mpi);
    }
    p += reductions_ ? kZeroingSiteBytes : kSiteBytes;
  }
  for (const FunctionShare& f : functions_) {
    Put<uint64_t>(p, f.function);
    Put<int64_t>(p + 8, f.ns);
    if (reductions_) Put<int64_t>(p + 16, f.reduction);
    p += reductions_ ? kZeroingFunctionBytes : kFunctionBytes;
  }
  for (const ContextShare& c : contexts_) {
    Put<uint64_t>(p, c.context);
    Put<int64_t>(p + 8, c.ns);
    p += kContextBytes;
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
  const size_t n = Get<uint16_t>(p + 2), n_ranks = Get<uint16_t>(p + 12), n_functions = Get<uint16_t>(p + 56),
               n_contexts = Get<uint16_t>(p + 58);
  const uint16_t flags = Get<uint16_t>(p + 14);
  const bool reductions = (flags & kHasReductions) != 0;
  const size_t site_bytes = reductions ? kZeroingSiteBytes : kSiteBytes;
  const size_t function_bytes = reductions ? kZeroingFunctionBytes : kFunctionBytes;
  if (Get<uint16_t>(p) != kVersion || (flags & ~kHasReductions) != 0 || n > kSites || n_ranks > kRanks ||
      n_functions > kFunctions || n_contexts > kContexts ||
      in.size() < kHeaderBytes + n * site_bytes + n_functions * function_bytes + n_contexts * kContextBytes +
                      n_ranks * kRankBytes) {
    return false;
  }
  path->reductions_ = reductions;
  path->end_rank_ = Get<int32_t>(p + 4);
  path->region_ = Get<int32_t>(p + 8);
  *t = Get<int64_t>(p + 16);
  path->compute_ = Get<int64_t>(p + 24);
  path->mpi_ = Get<int64_t>(p + 32);
  path->other_compute_ = Get<int64_t>(p + 40);
  path->other_mpi_ = Get<int64_t>(p + 48);
  for (int i = 0; i < 3; ++i) path->named_[i] = Get<int64_t>(p + 64 + 8 * i);
  path->sites_.resize(n);
  path->last_ = 0;
  p += kHeaderBytes;
  for (SiteShare& s : path->sites_) {
    s.site = Get<uint64_t>(p);
    s.compute = Get<int64_t>(p + 8);
    s.mpi = Get<int64_t>(p + 16);
    s.reduction_compute = reductions ? Get<int64_t>(p + 24) : 0;
    s.reduction_mpi = reductions ? Get<int64_t>(p + 32) : 0;
    p += site_bytes;
  }
  path->functions_.resize(n_functions);
  path->last_function_ = 0;
  for (FunctionShare& f : path->functions_) {
    f.function = Get<uint64_t>(p);
    f.ns = Get<int64_t>(p + 8);
    f.reduction = reductions ? Get<int64_t>(p + 16) : 0;
    p += function_bytes;
  }
  path->contexts_.resize(n_contexts);
  path->last_context_ = 0;
  for (ContextShare& c : path->contexts_) {
    c.context = Get<uint64_t>(p);
    c.ns = Get<int64_t>(p + 8);
    p += kContextBytes;
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
  if (path->has_reductions()) {
    for (Entry& e : partners) path->BoundReductions(e.path);
  }
  // A partner in a later region brought its start or stop marker: the
  // call's time after the last entry counts if that region is measured.
  path->set_region(region);
  path->set_end_rank(rank);
  // Clocks agree only to their offsets' error: a partner that seems to
  // have entered after the exit adds nothing.
  path->AddMpi(site, std::max<int64_t>(0, exit - ready));
}

const SiteShare* Path::FindSite(uint64_t site) const {
  for (const SiteShare& s : sites_) {
    if (s.site == site) return &s;
  }
  return nullptr;
}

const FunctionShare* Path::FindFunction(uint64_t function) const {
  for (const FunctionShare& f : functions_) {
    if (f.function == function) return &f;
  }
  return nullptr;
}

void Path::BoundReductions(const Path& other) {
  static thread_local std::vector<int64_t> bounds;
  other.BoundsOn(*this, &bounds);
  LowerReductions(bounds);
}

void Path::BoundsOn(const Path& longest, std::vector<int64_t>* bounds) const {
  const int64_t gap = longest.length() - length();
  const size_t n = longest.sites_.size();
  bounds->assign(2 * n + longest.functions_.size(), INT64_MAX);
  for (size_t i = 0; i < n; ++i) {
    const SiteShare& s = longest.sites_[i];
    if (s.reduction_compute <= gap && s.reduction_mpi <= gap) continue;  // this path is too short to matter
    // This path's reductions for the site: none when it does not keep it.
    const SiteShare* own = FindSite(s.site);
    (*bounds)[i] = gap + (own ? own->reduction_compute : 0);
    (*bounds)[n + i] = gap + (own ? own->reduction_mpi : 0);
  }
  for (size_t i = 0; i < longest.functions_.size(); ++i) {
    const FunctionShare& f = longest.functions_[i];
    if (f.reduction <= gap) continue;
    const FunctionShare* own = FindFunction(f.function);
    (*bounds)[2 * n + i] = gap + (own ? own->reduction : 0);
  }
}

void Path::LowerReductions(std::span<const int64_t> bounds) {
  const size_t n = sites_.size();
  if (bounds.size() != 2 * n + functions_.size()) return;
  for (size_t i = 0; i < n; ++i) {
    sites_[i].reduction_compute = std::max<int64_t>(0, std::min(sites_[i].reduction_compute, bounds[i]));
    sites_[i].reduction_mpi = std::max<int64_t>(0, std::min(sites_[i].reduction_mpi, bounds[n + i]));
  }
  for (size_t i = 0; i < functions_.size(); ++i) {
    functions_[i].reduction = std::max<int64_t>(0, std::min(functions_[i].reduction, bounds[2 * n + i]));
  }
}

void CombineWire(const uint8_t* in, uint8_t* inout, size_t room) {
  const int64_t t = std::max(Get<int64_t>(in + 16), Get<int64_t>(inout + 16));
  const int32_t region = std::max(WireRegion(in), WireRegion(inout));
  const bool longer = WireLength(in) > WireLength(inout);
  if ((Get<uint16_t>(inout + 14) & kHasReductions) != 0) {
    // Zeroing: the longer path, its reductions bounded by the other's.
    static thread_local Path a, b;
    int64_t ta = 0, tb = 0;
    if (Path::Decode({in, room}, &a, &ta) && Path::Decode({inout, room}, &b, &tb)) {
      Path& winner = longer ? a : b;
      winner.BoundReductions(longer ? b : a);
      winner.set_region(region);
      winner.Encode({inout, room}, t);
      return;
    }
  }
  if (longer) std::memcpy(inout, in, std::min(WireRecordBytes(in), room));
  Put<int64_t>(inout + 16, t);
  Put<int32_t>(inout + 8, region);
}

}  // namespace rp::online
