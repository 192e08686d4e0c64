#include "lib/profile/attribution.h"

#include <algorithm>

namespace rp::profile {

Attribution::Attribution(const window::Dictionary& dict, ShareOrder order)
    : frames_(dict.sites), tree_(frames_),
      ranks_limit_(dict.ranks > 0 ? dict.ranks : 0), order_(order) {
  tree_.NumberFunctions(dict.sites);
}

int32_t Attribution::SiteNode(int32_t site) {
  if (site < 0 || site >= window::kDenseSites) return tree_.InternSite(site);
  if (static_cast<size_t>(site) >= site_nodes_.size()) site_nodes_.resize(site + 1, -1);
  int32_t& node = site_nodes_[site];
  if (node < 0) node = tree_.InternSite(site);
  return node;
}

Attribution::Rank& Attribution::RankOf(int32_t rank) {
  if (static_cast<size_t>(rank) >= ranks_.size()) ranks_.resize(rank + 1);
  return ranks_[rank];
}

Status Attribution::AddWindow(const window::Window& w, int64_t run_start) {
  for (const window::Line& line : w.lines) {
    if (line.type != trace::RecordType::kSample) continue;
    ++counts_.samples;
    // Ranks are sized by the header, or without one by the ranks with
    // calls: a stray sample must not size arrays.
    const int64_t limit = ranks_limit_ > 0 ? ranks_limit_
                                           : std::max({static_cast<int64_t>(w.by_rank.size()),
                                                       static_cast<int64_t>(ranks_.size()), ranks_seen_});
    if (line.rank < 0 || line.rank >= limit) {
      ++counts_.unknown_rank;
      continue;
    }
    RP_RETURN_IF_ERROR(decoder_.DecodeCopy(w.text(line), &record_));
    const trace::SampleRecord& s = record_.sample;
    Rank& r = RankOf(line.rank);
    // A sample stands for at most a second of wall time more than any
    // run's: weights beyond kMostWeight are taken as that, so that sums
    // cannot overflow.
    int64_t weight = s.has_weight() ? std::min(s.weight, kMostWeight) : 0;
    if (weight > 0) {
      r.weight = weight;
    } else {
      ++counts_.unweighted;
      weight = r.weight > 0 ? r.weight : 1;
    }
    r.sampled = true;
    r.pending.push_back(Sample{s.t, weight, tree_.Intern(s.stack)});
  }
  event_rank_.assign(w.events.size(), -1);
  event_interval_.assign(w.events.size(), kNoComputation);
  event_site_charge_.resize(w.events.size());
  if (ranks_.size() < w.by_rank.size()) ranks_.resize(w.by_rank.size());
  for (size_t rank = 0; rank < ranks_.size(); ++rank) {
    static const std::vector<uint32_t> kNoEvents;
    SplitRank(ranks_[rank], w, rank < w.by_rank.size() ? w.by_rank[rank] : kNoEvents, run_start);
  }
  return OkStatus();
}

void Attribution::SplitRank(Rank& r, const window::Window& w, const std::vector<uint32_t>& events,
                            int64_t run_start) {
  std::vector<Sample>& s = r.pending;
  if (events.empty()) {
    // Its samples wait for its next calls; past a window's worth they
    // cannot be the application's (a rank after MPI_Finalize).
    if (s.size() > kMostPending) {
      counts_.outside += static_cast<int64_t>(s.size()) - 1;
      s.erase(s.begin(), s.end() - 1);
    }
    return;
  }
  r.called = true;
  std::stable_sort(s.begin(), s.end(), [](const Sample& a, const Sample& b) { return a.t < b.t; });
  size_t next = 0;  // the first sample not yet placed
  for (uint32_t e : events) {
    const window::Event& ev = w.events[e];
    // As the graph's program edge: from the previous call's exit.
    const int64_t a = r.previous_exit != INT64_MIN ? r.previous_exit : run_start, b = ev.t0;
    r.previous_exit = ev.t1;
    r.exit = std::max(r.exit, ev.t1);
    event_rank_[e] = ev.rank;
    // Before MPI_Init (a rank starting after another's MPI_Init returned)
    // is not the application's time.
    if (b <= a || ev.category() == mpi::Category::kInit) continue;
    while (next < s.size() && s[next].t <= a) ++counts_.outside, ++next;  // in a call, or before the start
    size_t end = next;
    while (end < s.size() && s[end].t <= b) ++end;
    scratch_.clear();
    Method method;
    if (end > next) {
      method = Method::kSampled;
      __int128 total = 0;
      for (size_t i = next; i < end; ++i) total += s[i].weight;
      Apportion apportion(b - a, total);
      for (size_t i = next; i < end; ++i) scratch_.push_back({s[i].node, apportion.Next(s[i].weight)});
    } else {
      // The nearest sample: the one before (this window's, or the rank's
      // last before it) or the one after, the earlier on a tie.
      const Sample* before = next > 0 ? &s[next - 1] : (r.last.node >= 0 ? &r.last : nullptr);
      const Sample* after = end < s.size() ? &s[end] : nullptr;
      const Sample* nearest = before;
      if (after != nullptr && (before == nullptr || after->t - b < a - before->t)) nearest = after;
      if (nearest == nullptr) {
        counts_.ns[static_cast<int>(Method::kCallSite)] += b - a;
        event_interval_[e] = kByCallSite;
        event_site_charge_[e] = SiteCharge{a, b, Share{SiteNode(ev.site), b - a}};
        next = end;
        continue;
      }
      method = Method::kNearest;
      scratch_.push_back({nearest->node, b - a});
    }
    next = end;
    counts_.ns[static_cast<int>(method)] += b - a;
    event_interval_[e] = r.interval_base + static_cast<int64_t>(r.intervals.size());
    AddInterval(r, a, b, method, &scratch_);
  }
  // Samples up to the last exit explained nothing; later ones may fall in
  // the next window's first computation.
  while (next < s.size() && s[next].t <= r.exit) ++counts_.outside, ++next;
  if (next > 0) r.last = s[next - 1];
  s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(next));
}

void Attribution::AddInterval(Rank& r, int64_t t0, int64_t t1, Method method, std::vector<Share>* shares) {
  // One share per node, by node; or in time order, runs of one node merged.
  if (order_ == ShareOrder::kByNode) {
    std::sort(shares->begin(), shares->end(), [](const Share& x, const Share& y) { return x.node < y.node; });
  }
  size_t out = 0;
  for (size_t i = 0; i < shares->size(); ++i) {
    if (out > 0 && (*shares)[out - 1].node == (*shares)[i].node) {
      (*shares)[out - 1].ns += (*shares)[i].ns;
    } else {
      (*shares)[out++] = (*shares)[i];
    }
  }
  shares->resize(out);
  if (!r.intervals.empty() && t1 < r.intervals.back().t1) r.unsorted = true;  // calls out of time order
  r.intervals.push_back(Interval{t0, t1, r.share_base + static_cast<int64_t>(r.shares.size()),
                                 static_cast<int32_t>(out), method});
  r.shares.insert(r.shares.end(), shares->begin(), shares->end());
}

Attribution::Computation Attribution::Before(uint32_t e) const {
  Computation c;
  if (e >= event_interval_.size() || event_interval_[e] == kNoComputation) return c;
  if (event_interval_[e] == kByCallSite) {
    const SiteCharge& charge = event_site_charge_[e];
    return Computation{charge.t0, charge.t1, Method::kCallSite, &charge.share, &charge.share + 1};
  }
  const Rank& r = ranks_[event_rank_[e]];
  const Interval& iv = r.intervals[event_interval_[e] - r.interval_base];
  const Share* first = r.shares.data() + (iv.first - r.share_base);
  return Computation{iv.t0, iv.t1, iv.method, first, first + iv.count};
}

void Attribution::ForgetBefore(int64_t t) {
  for (Rank& r : ranks_) {
    size_t drop = 0;
    while (drop < r.intervals.size() && r.intervals[drop].t1 < t) ++drop;
    if (drop == 0) continue;
    // Compact once the forgotten part is most of the vector.
    if (drop * 2 < r.intervals.size()) continue;
    const int64_t shares_drop = drop < r.intervals.size()
                                    ? r.intervals[drop].first - r.share_base
                                    : static_cast<int64_t>(r.shares.size());
    r.intervals.erase(r.intervals.begin(), r.intervals.begin() + static_cast<std::ptrdiff_t>(drop));
    r.shares.erase(r.shares.begin(), r.shares.begin() + shares_drop);
    r.interval_base += static_cast<int64_t>(drop);
    r.share_base += shares_drop;
  }
  event_interval_.assign(event_interval_.size(), kNoComputation);  // the window's are among them
}

void Attribution::Finish() {
  for (size_t rank = 0; rank < ranks_.size(); ++rank) {
    Rank& r = ranks_[rank];
    counts_.outside += static_cast<int64_t>(r.pending.size());
    r.pending.clear();
    if (r.called) ++counts_.ranks_with_events;
    if (r.sampled) ++counts_.ranks_with_samples;
    if (r.called && !r.sampled) {
      ++counts_.unsampled_ranks;
      if (counts_.ranks_without.size() < 8) counts_.ranks_without.push_back(static_cast<int64_t>(rank));
    }
  }
}

}  // namespace rp::profile
