// The longest path ending at a rank's current point, as the online
// critical path algorithm keeps it and sends it along with each message
// (online-CP paper §2.2, Figure 3: `longest` and the selected procedure's
// share). Here every call site's share is kept — the computation leading to
// its calls and the calls themselves — the kSites heaviest exactly and the
// rest summed, so the record's size is bounded (it must fit a piggyback
// under the shared-memory eager limit, 4 KiB on Open MPI).
//
// Costs follow rp-cpath's wall model (README, rp-cpath): computation
// between a rank's MPI calls, and an MPI call from the time it was ready —
// when it and every call it depended on had entered — to its exit. A call
// that depended on others (a receive on its message's send, a collective
// on its members) ends the longest of the paths that entered it, plus the
// time after all had entered:
//
//   exit path = longest(own entry path, partners' entry paths)
//               + (exit - max(own entry, partners' entries))
//
// Times are on one global clock (the collector's, after its offset
// measurement at MPI_Init).
//
// Critical path zeroing (online-CP §3, Figure 5), when switched on
// (set_zeroing): each kept site also carries its reductions, how much
// shorter the longest path to here would be if the computation leading to
// the site's calls (or the calls themselves) took no time — the paper's
// "net" length is length() minus it. At a merge the net lengths of every
// entering path are compared: reduction = min over paths p of
// (longest length - length(p) + p's reduction). A reduction never exceeds
// the site's share of the longest path (that path's own net length bounds
// it), so the sites the path keeps are the only ones with one; a site
// whose share was summed apart has its reduction dropped (a lower bound).
//
// Measuring part of a run (online-CP §2.3, MPI_Pcontrol): the path carries
// its rank's region number, odd while measuring (1: from MPI_Init), even
// once stopped. Time accrues only while measuring; paths still merge
// outside the regions, so the answer is the longest path with the time
// outside them counted as zero. A path from a higher region is the
// paper's start (or stop) marker: the receiver enters that region at the
// receive (cases 3 and 4 of §2.3; Chandy and Lamport's marker rule, so the
// regions begin and end at consistent cuts).
//
//   Path p;                                  // at MPI_Init's return
//   p.AddCompute(site, entry - last_exit);   // before each call
//   p.AddMpi(site, exit - entry);            // a call on its own
//   Entry mine{p, entry}; ... piggyback Encode(mine) ...
//   p = AtExit(mine, partners, exit, site);  // a call that waited on others
#ifndef RP_LIB_ONLINE_PATH_H_
#define RP_LIB_ONLINE_PATH_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace rp::online {

// The path's computation in one sampled function (FunctionKeys' key).
struct FunctionShare {
  uint64_t function = 0;
  int64_t ns = 0;
  // Zeroing: how much shorter the longest path to here would be if the
  // function's share of every computation took no time.
  int64_t reduction = 0;
};

// The path's computation in one sampled calling context (a function in
// its callers: the collector's context key).
struct ContextShare {
  uint64_t context = 0;
  int64_t ns = 0;
};

// The path's time on one rank.
struct RankShare {
  int32_t rank = 0;
  int64_t ns = 0;
};

struct SiteShare {
  uint64_t site = 0;  // the collector's key for a call site, the same on every rank
  int64_t compute = 0, mpi = 0;
  // Zeroing (set_zeroing): how much shorter the longest path to here
  // would be with the site's computation, or its calls, taking no time.
  int64_t reduction_compute = 0, reduction_mpi = 0;
  int64_t total() const { return compute + mpi; }
};

class Path {
 public:
  // Sites and ranks kept exactly; the wire record is at most kWireBytes.
  static constexpr size_t kSites = 128, kRanks = 32, kFunctions = 64, kContexts = 64;
  // The sites a path keeps in this process (at most kSites): fewer when
  // the piggyback carries representative paths too (path_set.h).
  static size_t site_limit() { return site_limit_; }
  static void set_site_limit(size_t n) { site_limit_ = n < kSites ? n : kSites; }
  // Whether this process's paths keep their sites' reductions (zeroing):
  // 16 more bytes a site on the wire.
  static bool zeroing() { return zeroing_; }
  static void set_zeroing(bool on) { zeroing_ = on; }
  static size_t site_bytes() { return zeroing_ ? kZeroingSiteBytes : kSiteBytes; }
  static size_t function_bytes() { return zeroing_ ? kZeroingFunctionBytes : kFunctionBytes; }
  // How many sites fit a wire record of `bytes` beside the ranks and
  // function_limit() functions (at most kSites).
  static size_t SitesFitting(size_t bytes) {
    const size_t rest =
        kHeaderBytes + kRankBytes * kRanks + function_bytes() * function_limit_ + kContextBytes * context_limit_;
    const size_t n = bytes < rest ? 0 : (bytes - rest) / site_bytes();
    return n < kSites ? n : kSites;
  }
  // Sampled functions kept (the heaviest; 0: no samples, none kept).
  static size_t function_limit() { return function_limit_; }
  static void set_function_limit(size_t n) { function_limit_ = n < kFunctions ? n : kFunctions; }
  // Sampled calling contexts kept (the heaviest; 0: none).
  static size_t context_limit() { return context_limit_; }
  static void set_context_limit(size_t n) { context_limit_ = n < kContexts ? n : kContexts; }
  // The most bytes a wire record takes with those limits.
  static size_t MaxWireBytes() {
    return kHeaderBytes + site_bytes() * site_limit_ + function_bytes() * function_limit_ +
           kContextBytes * context_limit_ + kRankBytes * kRanks;
  }

  int64_t length() const { return compute_ + mpi_; }
  int64_t compute() const { return compute_; }
  int64_t mpi() const { return mpi_; }
  // The measurement region the path's rank is in: odd while measuring.
  int32_t region() const { return region_; }
  void set_region(int32_t region) { region_ = region; }
  bool measuring() const { return region_ % 2 == 1; }
  // The rank where the path's last segment ran (-1: none yet).
  int32_t end_rank() const { return end_rank_; }
  void set_end_rank(int32_t rank) { end_rank_ = rank; }
  // The sites on the path, in the order they were first added; and what
  // the sites no longer kept had (their computation and MPI time).
  const std::vector<SiteShare>& sites() const { return sites_; }
  int64_t other_compute() const { return other_compute_; }
  int64_t other_mpi() const { return other_mpi_; }
  // The ranks the path's time ran on, the kRanks heaviest (the rest is
  // length() minus theirs), in the order they were first added.
  const std::vector<RankShare>& ranks() const { return ranks_; }
  // The path's computation by sampled function, the function_limit()
  // heaviest (the rest of compute() is in functions no longer kept), in
  // the order they were first added.
  const std::vector<FunctionShare>& functions() const { return functions_; }
  // The path's computation by sampled calling context, the
  // context_limit() heaviest, in the order they were first added.
  const std::vector<ContextShare>& contexts() const { return contexts_; }
  // The path's share of a site or function, nullptr when it keeps none.
  const SiteShare* FindSite(uint64_t site) const;
  const FunctionShare* FindFunction(uint64_t function) const;

  // Computation leading to a call at `site`, and time in a call at it
  // (nothing outside a measured region).
  // Both on the path's end rank.
  // Zeroing the site's computation (calls) saves this path all of it.
  void AddCompute(uint64_t site, int64_t ns) {
    if (!measuring()) return;
    SiteShare& s = Share(site);
    s.compute += ns, s.reduction_compute += ns, compute_ += ns, OnRank(ns);
  }
  void AddMpi(uint64_t site, int64_t ns) {
    if (!measuring()) return;
    SiteShare& s = Share(site);
    s.mpi += ns, s.reduction_mpi += ns, mpi_ += ns, OnRank(ns);
  }

  // Part of the computation just added (AddCompute), as the samples split
  // it: `ns` of it ran in `function`, named as `by` says.
  enum class NamedBy { kSamples, kLastSample, kCallSite };
  void AddFunction(uint64_t function, int64_t ns, NamedBy by);
  // The same part in its calling context.
  void AddContext(uint64_t context, int64_t ns);
  // The path's computation named by the samples inside it, by the rank's
  // last sample, and by the call ending it (lib/profile's Methods).
  int64_t compute_named(NamedBy by) const { return named_[static_cast<int>(by)]; }

  // Zeroing at a merge, this path being the longest: its reductions lowered
  // to what `other` (entering the same call) leaves, since with a site
  // zeroed `other` may be the longer one (online-CP §3, Figure 5 lines 5-6).
  void BoundReductions(const Path& other);
  // What this path allows `longest` (entering the same call) to save:
  // for each of its sites' computation, then their calls, then each of its
  // functions, the gap in length plus this path's own reduction (INT64_MAX
  // where the gap alone already bounds it). An MPI_MIN over the members'
  // bounds is BoundReductions over all of them.
  void BoundsOn(const Path& longest, std::vector<int64_t>* bounds) const;
  // `longest`'s reductions lowered to such bounds (the same layout).
  void LowerReductions(std::span<const int64_t> bounds);

  // The wire record: 88 bytes, 24 a site (40 with zeroing), 16 a function
  // (24), 16 a context and 12 a rank.
  // Encode returns the bytes written (out must hold WireBytes()); Decode
  // false on a malformed record.
  size_t WireBytes() const {
    return kHeaderBytes + (reductions_ ? kZeroingSiteBytes : kSiteBytes) * sites_.size() +
           (reductions_ ? kZeroingFunctionBytes : kFunctionBytes) * functions_.size() +
           kContextBytes * contexts_.size() + kRankBytes * ranks_.size();
  }
  // Whether the path keeps reductions: made while zeroing() was on, or
  // decoded from a record that has them.
  bool has_reductions() const { return reductions_; }
  size_t Encode(std::span<uint8_t> out, int64_t t) const;
  static bool Decode(std::span<const uint8_t> in, Path* path, int64_t* t);

  static constexpr size_t kHeaderBytes = 88, kSiteBytes = 24, kZeroingSiteBytes = 40, kFunctionBytes = 16,
                          kZeroingFunctionBytes = 24, kContextBytes = 16,
                          kRankBytes = 12;

 private:
  SiteShare& Share(uint64_t site);
  void OnRank(int64_t ns);

  static inline size_t site_limit_ = kSites;
  static inline size_t function_limit_ = 0;
  static inline size_t context_limit_ = 0;
  static inline bool zeroing_ = false;

  int64_t compute_ = 0, mpi_ = 0, other_compute_ = 0, other_mpi_ = 0;
  int64_t named_[3] = {};  // by NamedBy
  int32_t end_rank_ = -1;
  int32_t region_ = 1;
  bool reductions_ = zeroing_;
  std::vector<SiteShare> sites_;
  std::vector<RankShare> ranks_;
  std::vector<FunctionShare> functions_;
  std::vector<ContextShare> contexts_;
  size_t last_ = 0, last_rank_ = 0, last_function_ = 0, last_context_ = 0;  // the last used: calls repeat
};

inline constexpr size_t kWireBytes =
    Path::kHeaderBytes + Path::kSiteBytes * Path::kSites + Path::kRankBytes * Path::kRanks;

// A path at a call's entry and the entry's time (global clock, ns).
struct Entry {
  Path path;
  int64_t t = 0;
};

// The path at the exit of a call at `site` that depended on `partners`
// (see above): the longest entry path (ties: the call's own) plus the
// time from the last entry to `exit`, charged to the site's MPI time —
// if measuring in the highest region of them all, which the call enters.
Path AtExit(const Entry& own, std::span<const Entry> partners, int64_t exit, uint64_t site, int32_t rank);
// The same on the rank's own path, which entered at `entry`: the longest
// partner's path is moved in (the collector's form: no copy of its own).
void ExitInPlace(Path* path, int64_t entry, std::span<Entry> partners, int64_t exit, uint64_t site, int32_t rank);

// Combines two wire records into `inout` (the MPI user operation of the
// collectives that pass paths): the longer path (ties: inout's), its
// reductions bounded by the other's (zeroing), with the later of the two
// entry times and the higher region. Both hold `room` bytes (at most
// kWireBytes).
void CombineWire(const uint8_t* in, uint8_t* inout, size_t room = kWireBytes);

}  // namespace rp::online

#endif  // RP_LIB_ONLINE_PATH_H_
