#include "lib/diagnose/timeline.h"

#include <algorithm>
#include <string>

#include "lib/window/window.h"

namespace rp::diagnose {

void Timeline::Add(Kept& k, int32_t rank, State state, int64_t t0, int64_t t1) {
  if (t1 <= t0 || rank < 0) return;
  if (spans_.size() <= static_cast<size_t>(rank)) spans_.resize(rank + 1);
  if (spans_[rank] >= share_) return;
  k.spans.push_back({rank, state, t0, t1});
  ++spans_[rank];
}

int64_t Timeline::KeyOf(int32_t phase, int64_t cluster) {
  // As rp-diagnose's sums: a phase without a cluster is a cluster of its
  // own; the run without phases is one.
  return phase == window::kNone ? window::kNone : cluster >= 0 ? cluster : phase;
}

void Timeline::See(int32_t phase, int64_t cluster) {
  const int64_t key = KeyOf(phase, cluster);
  auto [it, fresh] = kept_.try_emplace(key);
  Kept& k = it->second;
  // rp-phases numbers phases in time order: a larger id is a phase of the
  // cluster not seen before. The first is kept, then replaced by the
  // second; later ones are not drawn.
  if (!fresh && phase <= k.latest) return;
  k.latest = phase;
  if (k.seen++ >= 2) return;
  cluster_of_[phase] = key;
  if (!fresh) {
    for (const Span& span : k.spans) --spans_[span.rank];
    k.spans.clear();
    k.steps.clear();
  }
  k.phase = phase;
}

void Timeline::Call(int32_t phase, int64_t cluster, int32_t rank, int64_t start, int64_t t0, int64_t wait,
                    int64_t t1) {
  auto it = kept_.find(KeyOf(phase, cluster));
  if (it == kept_.end() || it->second.phase != phase) return;
  Kept& k = it->second;
  Add(k, rank, kCompute, start, t0);
  Add(k, rank, kWait, t0, t0 + wait);
  Add(k, rank, kMpi, t0 + wait, t1);
}

void Timeline::Step(int32_t phase, int32_t rank, int64_t t0, int64_t t1, const StreamPlace& place) {
  auto c = cluster_of_.find(phase);
  if (c == cluster_of_.end()) return;
  Kept& k = kept_[c->second];
  if (k.phase != phase || t1 <= t0) return;
  Append(&k.steps, {rank, t0, t1, place});
}

void Timeline::Append(std::vector<PathStep>* steps, const PathStep& s) {
  // Consecutive steps on one rank are one.
  if (!steps->empty() && steps->back().rank == s.rank && steps->back().t1 == s.t0) {
    steps->back().t1 = s.t1;
  } else {
    steps->push_back(s);
  }
}

Status Timeline::Write(int64_t cluster, trace::Writer& out) const {
  auto it = kept_.find(cluster);
  if (it == kept_.end() || it->second.spans.empty()) return OkStatus();
  const Kept& k = it->second;
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  int32_t ranks = 0;
  for (const Span& s : k.spans) {
    t0 = std::min(t0, s.t0);
    t1 = std::max(t1, s.t1);
    ranks = std::max(ranks, s.rank + 1);
  }
  const int lanes = std::min(ranks, kLanes);
  const double bin = static_cast<double>(t1 - t0) / kBins;
  // lane -> state -> bin -> ns
  std::vector<std::vector<std::vector<int64_t>>> ns(lanes, std::vector<std::vector<int64_t>>(3, std::vector<int64_t>(kBins)));
  auto lane_of = [&](int32_t rank) { return static_cast<int>(int64_t{rank} * lanes / ranks); };
  for (const Span& s : k.spans) {
    std::vector<int64_t>& v = ns[lane_of(s.rank)][s.state];
    const int first = std::min<int>(kBins - 1, static_cast<int>((s.t0 - t0) / bin));
    const int last = std::min<int>(kBins - 1, static_cast<int>((s.t1 - t0) / bin));
    for (int b = first; b <= last; ++b) {
      const int64_t lo = std::max<int64_t>(s.t0, t0 + static_cast<int64_t>(b * bin));
      const int64_t hi = std::min<int64_t>(s.t1, t0 + static_cast<int64_t>((b + 1) * bin));
      if (hi > lo) v[b] += hi - lo;
    }
  }
  auto base = [&](trace::TimelineRecord* r) {
    if (cluster >= 0) r->set_cluster(cluster);
    if (k.phase != window::kNone) r->set_phase(k.phase);
    r->set_t0(t0);
    r->set_t1(t1);
  };
  for (int lane = 0; lane < lanes; ++lane) {
    trace::TimelineRecord r;
    base(&r);
    r.set_lane(lane);
    // The lane's ranks: those whose lane_of is this one.
    const int64_t first = (int64_t{lane} * ranks + lanes - 1) / lanes;
    const int64_t last = (int64_t{lane + 1} * ranks + lanes - 1) / lanes - 1;
    r.set_first(first);
    r.set_last(last);
    r.set_compute(ns[lane][kCompute]);
    r.set_mpi(ns[lane][kMpi]);
    r.set_wait(ns[lane][kWait]);
    RP_RETURN_IF_ERROR(out.Write(r));
  }
  if (!k.steps.empty()) {
    trace::TimelineRecord r;
    base(&r);
    r.set_lane(-1);
    std::vector<int64_t> ranks_of, starts, ends;
    for (const PathStep& s : k.steps) {
      ranks_of.push_back(s.rank);
      starts.push_back(std::max(s.t0, t0));
      ends.push_back(std::min(s.t1, t1));
    }
    r.set_ranks(ranks_of);
    r.set_starts(starts);
    r.set_ends(ends);
    RP_RETURN_IF_ERROR(out.Write(r));
  }
  return OkStatus();
}

void Timeline::Pack(dist::Packer* out) const {
  out->Put<uint64_t>(kept_.size());
  for (const auto& [cluster, k] : kept_) {
    out->Put(cluster);
    out->Put(k.phase);
    out->Put(k.latest);
    out->Put(k.seen);
    out->Put<uint64_t>(k.spans.size());
    for (const Span& s : k.spans) {
      out->Put(s.rank);
      out->Put<uint8_t>(s.state);
      out->Put(s.t0);
      out->Put(s.t1);
    }
    out->Put<uint64_t>(k.steps.size());
    for (const PathStep& s : k.steps) {
      out->Put(s.rank);
      out->Put(s.t0);
      out->Put(s.t1);
      for (int64_t v : {s.place.phase, s.place.time, s.place.rank, s.place.after}) out->Put(v);
    }
  }
}

Status Timeline::Merge(dist::Unpacker* in) {
  constexpr size_t kSpanBytes = 4 + 1 + 8 + 8, kStepBytes = 4 + 8 + 8 + 4 * 8;
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    const int64_t cluster = in->Get<int64_t>();
    Kept theirs;
    theirs.phase = in->Get<int32_t>();
    theirs.latest = in->Get<int32_t>();
    theirs.seen = in->Get<int64_t>();
    uint64_t count = in->Get<uint64_t>();
    if (in->bad() || count > in->left() / kSpanBytes) return InputError("damaged timeline");
    theirs.spans.resize(count);
    for (Span& s : theirs.spans) {
      s.rank = in->Get<int32_t>();
      const uint8_t state = in->Get<uint8_t>();
      if (state > kWait) return InputError("damaged timeline");
      s.state = static_cast<State>(state);
      s.t0 = in->Get<int64_t>();
      s.t1 = in->Get<int64_t>();
    }
    count = in->Get<uint64_t>();
    if (in->bad() || count > in->left() / kStepBytes) return InputError("damaged timeline");
    theirs.steps.resize(count);
    for (PathStep& s : theirs.steps) {
      s.rank = in->Get<int32_t>();
      s.t0 = in->Get<int64_t>();
      s.t1 = in->Get<int64_t>();
      for (int64_t* v : {&s.place.phase, &s.place.time, &s.place.rank, &s.place.after}) *v = in->Get<int64_t>();
    }
    // Every process saw the same phases (See): they drew the same one.
    auto [it, fresh] = kept_.try_emplace(cluster);
    Kept& k = it->second;
    if (fresh) {
      k = std::move(theirs);
      cluster_of_[k.phase] = cluster;
      continue;
    }
    if (theirs.phase != k.phase) {
      return InputError("the processes drew different phases of cluster " + std::to_string(cluster));
    }
    k.spans.insert(k.spans.end(), theirs.spans.begin(), theirs.spans.end());
    // The path's steps back in the stream's order, the path's.
    std::vector<PathStep> steps = std::move(k.steps);
    steps.insert(steps.end(), theirs.steps.begin(), theirs.steps.end());
    std::sort(steps.begin(), steps.end(), [](const PathStep& a, const PathStep& b) { return a.place < b.place; });
    k.steps.clear();
    for (const PathStep& s : steps) Append(&k.steps, s);
  }
  return in->bad() ? InputError("damaged timeline") : OkStatus();
}

}  // namespace rp::diagnose
