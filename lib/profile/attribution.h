// How a rank's time between two of its MPI calls (a computation) splits
// over calling contexts: the events give the computation's exact length,
// the samples inside it the split (online critical path paper §2–3 per
// procedure; representative paths paper §6).
//
// A sample at time t stands for the time just before it, so a computation
// (a, b] — from the previous call's exit to the next call's entry — holds
// the samples with a < t <= b; its length is split in proportion to their
// weights (the wall time each stands for). A computation without a sample
// is charged whole to the context of the rank's nearest sample (in time,
// the earlier on a tie: the samples of its window and the rank's last one
// before it), or, on a rank without samples, to the MPI call site that
// ends it; Method says which. Samples inside calls, before MPI_Init
// returned or after MPI_Finalize was called explain no computation and
// are counted as outside.
//
// Streaming: samples are held for one window (and a rank's last one), and
// each computation's split until the caller forgets it (ForgetBefore), so
// memory follows the window, not the run.
//
//   Attribution attribution(dict);
//   for (each window w) {
//     RP_RETURN_IF_ERROR(attribution.AddWindow(w, run_start));
//     for (e : w.events) attribution.Before(e) ...   // every computation
//     attribution.Split(rank, t0, t1, site, fn)     // a critical-path segment
//     attribution.ForgetBefore(decided_until);
//   }
//   attribution.Finish();
#ifndef RP_LIB_PROFILE_ATTRIBUTION_H_
#define RP_LIB_PROFILE_ATTRIBUTION_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "lib/base/apportion.h"
#include "lib/base/status.h"
#include "lib/profile/context_tree.h"
#include "lib/trace/codec.h"
#include "lib/window/window.h"

namespace rp::profile {

// lib/base's, by its old name here.
using Apportion = rp::Apportion;

enum class Method : uint8_t {
  kSampled,   // by the samples inside it
  kNearest,   // no sample inside: the rank's nearest sample
  kCallSite,  // no sample on the rank: the call that ends it
};
inline constexpr int kMethods = 3;

struct Share {
  int32_t node;  // ContextTree node (a sample's leaf)
  int64_t ns;
};

struct Counts {
  int64_t samples = 0;           // sample records read
  int64_t outside = 0;           // in no computation of their rank
  int64_t unweighted = 0;        // weight missing or 0: counted with the rank's last weight
  int64_t unknown_rank = 0;      // rank beyond the header's count (or the ranks with calls): ignored
  int64_t ns[kMethods] = {};     // computation of all ranks, by Method
  int64_t ranks_with_events = 0, ranks_with_samples = 0;
  int64_t unsampled_ranks = 0;  // with calls and no samples
  std::vector<int64_t> ranks_without;  // ranks with events and no samples: the first 8
};

// How a computation's shares are listed: one per context, by node (what
// profiles add up), or in the time order of the samples behind them,
// consecutive ones of one context merged (what a timeline draws).
enum class ShareOrder : uint8_t { kByNode, kByTime };

class Attribution {
 public:
  explicit Attribution(const window::Dictionary& dict, ShareOrder order = ShareOrder::kByNode);

  // Splits every computation of the window: on each rank, from its previous
  // call's exit (the run's start before its first) to each call's entry.
  Status AddWindow(const window::Window& w, int64_t run_start);
  // For a window split between processes, before AddWindow: the window's
  // ranks over every process (graph::WindowExtent::ranks). Without the
  // header's count, samples' ranks are bounded by the ranks with calls so
  // far, as one process reading the whole window bounds them.
  void SeeRanks(int64_t ranks) { ranks_seen_ = std::max(ranks_seen_, ranks); }

  // The computation before event `e` of the window last added.
  struct Computation {
    int64_t t0 = 0, t1 = 0;
    Method method = Method::kCallSite;
    const Share* begin = nullptr;  // by node, or by time (ShareOrder)
    const Share* end = nullptr;
  };
  Computation Before(uint32_t e) const;

  // The part [t0, t1] of a computation of `rank` ending at t1, from any
  // window not forgotten: fn(node, ns) for its shares scaled to the part;
  // returns its Method. A part no computation holds is charged to `site`.
  template <typename F>
  Method Split(int32_t rank, int64_t t0, int64_t t1, int64_t site, F&& fn);

  // Forgets computations that end before t (the critical path has passed).
  void ForgetBefore(int64_t t);
  // Counts the samples no later window can explain.
  void Finish();

  const ContextTree& tree() const { return tree_; }
  ContextTree& tree() { return tree_; }
  const Counts& counts() const { return counts_; }
  bool any_samples() const { return counts_.samples > 0; }

 private:
  struct Sample {
    int64_t t;
    int64_t weight;
    int32_t node;
  };
  struct Interval {
    int64_t t0, t1;
    int64_t first;  // of its shares, absolute index in its rank's shares
    int32_t count;
    Method method;
  };
  struct Rank {
    std::vector<Sample> pending;  // this window's samples and later ones carried over
    Sample last{0, 0, -1};        // the last sample before them (node -1: none)
    int64_t weight = 0;           // the last positive weight seen
    int64_t previous_exit = INT64_MIN;  // the exit of its call last read
    int64_t exit = INT64_MIN;           // the latest exit of its calls
    bool sampled = false, called = false;
    bool unsorted = false;  // intervals not in t1 order (calls out of time order)
    // Splits not forgotten: intervals[i - interval_base], shares[j - share_base].
    std::vector<Interval> intervals;
    std::vector<Share> shares;
    int64_t interval_base = 0, share_base = 0;
  };
  Rank& RankOf(int32_t rank);
  // The one-frame context of an MPI call site, cached by site id.
  int32_t SiteNode(int32_t site);
  void SplitRank(Rank& r, const window::Window& w, const std::vector<uint32_t>& events, int64_t run_start);
  void AddInterval(Rank& r, int64_t t0, int64_t t1, Method method, std::vector<Share>* shares);

  static constexpr int64_t kMostWeight = int64_t{1} << 50;  // 13 days
  static constexpr size_t kMostPending = size_t{1} << 16;
  Frames frames_;
  ContextTree tree_;
  int64_t ranks_limit_;
  int64_t ranks_seen_ = 0;  // SeeRanks'
  ShareOrder order_;
  std::vector<Rank> ranks_;
  std::vector<int32_t> event_rank_;
  std::vector<int64_t> event_interval_;  // absolute; kNoComputation, kByCallSite
  static constexpr int64_t kNoComputation = -1, kByCallSite = -2;
  // Computations charged to their call site are not kept as intervals (a
  // rank without samples has only those): Split finds the same node.
  struct SiteCharge {
    int64_t t0, t1;
    Share share;
  };
  std::vector<SiteCharge> event_site_charge_;
  std::vector<int32_t> site_nodes_;  // by site id, -1 unknown yet
  std::vector<Share> scratch_;
  Counts counts_;
  trace::LineDecoder decoder_;
  trace::Record record_;
};

template <typename F>
Method Attribution::Split(int32_t rank, int64_t t0, int64_t t1, int64_t site, F&& fn) {
  if (rank >= 0 && static_cast<size_t>(rank) < ranks_.size()) {
    const Rank& r = ranks_[rank];
    // The latest interval ending at t1 that covers [t0, t1] (a rank's
    // intervals are in time order unless its calls are not).
    auto at = r.unsorted ? r.intervals.end()
                         : std::upper_bound(r.intervals.begin(), r.intervals.end(), t1,
                                            [](int64_t t, const Interval& iv) { return t < iv.t1; });
    while (at != r.intervals.begin()) {
      const Interval& iv = *--at;
      if (iv.t1 != t1) {
        if (r.unsorted) continue;
        break;
      }
      if (iv.t0 > t0) continue;
      const int64_t whole = iv.t1 - iv.t0, part = t1 - t0;
      const Share* s = &r.shares[iv.first - r.share_base];
      Apportion apportion(part, whole);
      for (int32_t k = 0; k < iv.count; ++k) {
        const int64_t ns = apportion.Next(s[k].ns);
        if (ns > 0) fn(s[k].node, ns);
      }
      return iv.method;
    }
  }
  fn(SiteNode(static_cast<int32_t>(site)), t1 - t0);
  return Method::kCallSite;
}

}  // namespace rp::profile

#endif  // RP_LIB_PROFILE_ATTRIBUTION_H_
