#include "lib/online/path_set.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "lib/online/keep_heaviest.h"
#include "lib/online/wire.h"

namespace rp::online {
namespace {

constexpr uint16_t kVersion = 1;

using wire::Get;
using wire::Put;

auto Key(const repr::Interval& i) { return std::tie(i.rank, i.first, i.last, i.t0, i.t1, i.cost, i.tasks); }

// The order of a join's candidates: the most costly first; ties by the
// summary, so every rank orders the same candidates alike.
bool Before(const SetPath& a, const SetPath& b) {
  if (a.cost != b.cost) return a.cost > b.cost;
  return std::lexicographical_compare(a.summary.begin(), a.summary.end(), b.summary.begin(), b.summary.end(),
                                      [](const repr::Interval& x, const repr::Interval& y) { return Key(x) < Key(y); });
}

bool Same(const SetPath& a, const SetPath& b) {
  return a.cost == b.cost &&
         std::equal(a.summary.begin(), a.summary.end(), b.summary.begin(), b.summary.end(),
                    [](const repr::Interval& x, const repr::Interval& y) { return Key(x) == Key(y); });
}

}  // namespace

void PathSet::AddTask(int32_t rank, int64_t call, int64_t t0, int64_t t1, std::span<const FunctionCost> code) {
  const repr::Interval task{rank, call, call, t0, t1, std::max<int64_t>(0, t1 - t0), 1};
  const size_t cap = static_cast<size_t>(std::max(1, config_.intervals));
  const size_t functions = static_cast<size_t>(std::max(0, config_.functions));
  for (SetPath& p : paths_) {
    p.cost += task.cost;
    for (const FunctionCost& part : code) {
      if (functions == 0) break;
      // Full: the lightest function's cost goes to the rest of the path.
      size_t last = 0;
      const uint64_t function = part.function;
      FindOrAdd(
          p.code, last, functions, FunctionCost{function},
          [function](const FunctionCost& f) { return f.function == function; },
          [](const FunctionCost& f) { return f.ns; }, [](const FunctionCost&) {})
          .ns += part.ns;
    }
    const bool merges = !p.summary.empty() && (p.summary.back().rank == rank || p.overflow());
    if (merges || p.summary.size() < cap) {
      if (p.overflow()) {
        repr::Interval& rest = p.summary.back();
        rest.last = task.last, rest.t1 = task.t1, rest.cost += task.cost, rest.tasks += 1;
      } else {
        repr::Push(&p.summary, task);
      }
      continue;
    }
    // Full: the last interval and everything after it become the rest.
    repr::Interval& rest = p.summary.back();
    rest.rank = SetPath::kRest;
    rest.last = task.last, rest.t1 = task.t1, rest.cost += task.cost, rest.tasks += 1;
  }
}

void PathSet::Join(std::span<const PathSet* const> others, std::vector<int>* positions, int* total) {
  // Candidates by pointer, the kept ones copied into scratch_ (whose paths'
  // summaries keep their capacity: no allocation once warm), then swapped in.
  candidates_.clear();
  for (const SetPath& p : paths_) candidates_.push_back(&p);
  for (const PathSet* o : others) {
    for (const SetPath& p : o->paths_) candidates_.push_back(&p);
  }
  std::sort(candidates_.begin(), candidates_.end(), [](const SetPath* a, const SetPath* b) { return Before(*a, *b); });
  candidates_.erase(std::unique(candidates_.begin(), candidates_.end(),
                                [](const SetPath* a, const SetPath* b) { return Same(*a, *b); }),
                    candidates_.end());
  repr::Choose(config_.select, static_cast<int>(candidates_.size()), config_.k, &chosen_);
  scratch_.resize(chosen_.size());
  for (size_t j = 0; j < chosen_.size(); ++j) scratch_[j] = *candidates_[chosen_[j]];
  paths_.swap(scratch_);
  if (positions) *positions = chosen_;
  if (total) *total = static_cast<int>(candidates_.size());
}

size_t PathSet::WireBytes() const {
  size_t bytes = kHeaderBytes;
  for (const SetPath& p : paths_) bytes += kPathBytes + kIntervalBytes * p.summary.size() + kFunctionBytes * p.code.size();
  return bytes;
}

// Header: version u16, paths u16, 4 bytes unused. A path: cost i64,
// intervals u16, functions u16, 4 bytes unused; its intervals, then its
// functions. An interval: rank i32, tasks i32, first, last (u32: a rank's
// call count), t0, t1, cost (i64). A function: key u64, ns i64.
size_t PathSet::Encode(std::span<uint8_t> out) const {
  const size_t bytes = WireBytes();
  if (out.size() < bytes) return 0;
  uint8_t* p = out.data();
  Put<uint16_t>(p, kVersion);
  Put<uint16_t>(p + 2, static_cast<uint16_t>(paths_.size()));
  Put<uint32_t>(p + 4, 0);
  p += kHeaderBytes;
  for (const SetPath& path : paths_) {
    Put<int64_t>(p, path.cost);
    Put<uint16_t>(p + 8, static_cast<uint16_t>(path.summary.size()));
    Put<uint16_t>(p + 10, static_cast<uint16_t>(path.code.size()));
    std::memset(p + 12, 0, 4);
    p += kPathBytes;
    for (const repr::Interval& i : path.summary) {
      Put<int32_t>(p, i.rank);
      Put<int32_t>(p + 4, static_cast<int32_t>(i.tasks));
      Put<uint32_t>(p + 8, static_cast<uint32_t>(i.first));
      Put<uint32_t>(p + 12, static_cast<uint32_t>(i.last));
      Put<int64_t>(p + 16, i.t0);
      Put<int64_t>(p + 24, i.t1);
      Put<int64_t>(p + 32, i.cost);
      p += kIntervalBytes;
    }
    for (const FunctionCost& f : path.code) {
      Put<uint64_t>(p, f.function);
      Put<int64_t>(p + 8, f.ns);
      p += kFunctionBytes;
    }
  }
  return bytes;
}

bool PathSet::Decode(std::span<const uint8_t> in, const SetConfig& config, PathSet* set) {
  if (in.size() < kHeaderBytes) return false;
  const uint8_t* p = in.data();
  const uint8_t* end = p + in.size();
  const size_t n = Get<uint16_t>(p + 2);
  if (Get<uint16_t>(p) != kVersion || n > static_cast<size_t>(config.k)) return false;
  set->config_ = config;
  set->paths_.resize(n);
  p += kHeaderBytes;
  for (SetPath& path : set->paths_) {
    if (end - p < static_cast<ptrdiff_t>(kPathBytes)) return false;
    path.cost = Get<int64_t>(p);
    const size_t m = Get<uint16_t>(p + 8), functions = Get<uint16_t>(p + 10);
    p += kPathBytes;
    if (m > static_cast<size_t>(std::max(1, config.intervals)) ||
        functions > static_cast<size_t>(std::max(0, config.functions)) ||
        end - p < static_cast<ptrdiff_t>(m * kIntervalBytes + functions * kFunctionBytes)) {
      return false;
    }
    path.summary.resize(m);
    for (repr::Interval& i : path.summary) {
      i.rank = Get<int32_t>(p);
      i.tasks = Get<int32_t>(p + 4);
      i.first = Get<uint32_t>(p + 8);
      i.last = Get<uint32_t>(p + 12);
      i.t0 = Get<int64_t>(p + 16);
      i.t1 = Get<int64_t>(p + 24);
      i.cost = Get<int64_t>(p + 32);
      p += kIntervalBytes;
    }
    path.code.resize(functions);
    for (FunctionCost& f : path.code) {
      f.function = Get<uint64_t>(p);
      f.ns = Get<int64_t>(p + 8);
      p += kFunctionBytes;
    }
  }
  return true;
}

void JoinWire(const SetConfig& config, const uint8_t* in, uint8_t* inout) {
  const size_t bytes = PathSet::MaxBytes(config);
  PathSet a(config), b(config);
  // A record that does not decode (never written by a rank) gives way.
  if (!PathSet::Decode({in, bytes}, config, &a)) return;
  if (!PathSet::Decode({inout, bytes}, config, &b)) {
    std::memcpy(inout, in, bytes);
    return;
  }
  const PathSet* other = &a;
  b.Join({&other, 1});
  b.Encode({inout, bytes});
}

int IntervalsFor(size_t bytes, int k, int functions) {
  if (k <= 0 || bytes < PathSet::kHeaderBytes) return 0;
  const size_t per_path = (bytes - PathSet::kHeaderBytes) / static_cast<size_t>(k);
  const size_t fixed = PathSet::kPathBytes + PathSet::kFunctionBytes * static_cast<size_t>(std::max(0, functions));
  if (per_path <= fixed) return 0;
  return static_cast<int>((per_path - fixed) / PathSet::kIntervalBytes);
}

int ProfileFunctionsFor(size_t bytes, int k) {
  for (int functions = 4; functions > 0; --functions) {
    if (IntervalsFor(bytes, k, functions) >= 2) return functions;
  }
  return 0;
}

}  // namespace rp::online
