#include "lib/repr/repr.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "lib/base/version.h"
#include "lib/graph/window_graphs.h"
#include "lib/profile/attribution.h"
#include "lib/repr/path_profile.h"
#include "lib/trace/codec.h"

namespace rp::repr {
namespace {

using window::kNone;

// A task as written: its rank, the call it leads to, its computation.
struct PathTask {
  int32_t rank;
  int64_t seq;
  int64_t t0, t1, cost;
};

// The tasks a kept path has so far in earlier windows of its phase, as a
// chain of parts shared by the paths that went through them.
struct Part {
  std::vector<PathTask> tasks;
  std::vector<profile::Share> shares;  // its tasks' code
  int32_t prev = -1;
  int32_t refs = 0;
};

class Stage {
 public:
  Stage(const StageConfig& config, const window::Dictionary& dict, trace::Writer& out)
      : config_(config), out_(out), sets_(Config{config.k, config.select, config.cost, /*reset_at_phase=*/true}),
        attribution_(dict), profiles_(config.k) {}

  // Windows no longer needed go to *done, for their buffers to be reused.
  Status AddWindow(std::unique_ptr<graph::WindowGraph> w, std::vector<std::unique_ptr<graph::WindowGraph>>* done) {
    const graph::Graph& g = w->graph;
    const window::Window& win = w->window;
    RP_RETURN_IF_ERROR(NotePhases(win));
    if (config_.passthrough) {
      for (const window::Line& r : win.lines) RP_RETURN_IF_ERROR(out_.WriteRaw(win.text(r)));
    }
    if (win.events.empty()) {
      // Records after the last call (a sample, a site): nothing for the
      // paths, and the pending window may still be the last with calls;
      // their samples are counted once it is done with.
      if (!pending_) {
        RP_RETURN_IF_ERROR(attribution_.AddWindow(win, run_start_));
        done->push_back(std::move(w));
      } else {
        trailing_.push_back(std::move(w));
      }
      return OkStatus();
    }
    // The window before this one ended in mid-phase: the phase runs on.
    if (pending_) {
      Continue(*pending_);
      done->push_back(std::move(pending_));
    }
    RP_RETURN_IF_ERROR(AddTrailing(done));
    attribution_.ForgetBefore(INT64_MAX);  // only the window's own tasks are asked for
    if (!started_) {
      started_ = true;
      run_start_ = g.application_start();
    }
    RP_RETURN_IF_ERROR(attribution_.AddWindow(win, run_start_));
    sets_.Run(g, carried_, run_start_);
    std::set<int32_t> phases;
    for (const window::Event& e : win.events) phases.insert(e.phase);
    tagged_ |= *phases.rbegin() != kNone;
    // Every phase but the window's last ends here; so does the last when
    // the window ends at its closing synchronization.
    const int32_t last = *phases.rbegin();
    for (int32_t p : phases) {
      if (p != last) RP_RETURN_IF_ERROR(Complete(g, p));
    }
    if (last != kNone && win.ends_with_sync) {
      RP_RETURN_IF_ERROR(Complete(g, last));
      sets_.Carry(g, &carried_);
      done->push_back(std::move(w));
      return OkStatus();
    }
    pending_ = std::move(w);  // ends here or runs on: the next window says
    return OkStatus();
  }

  Status Finish() {
    if (pending_) {
      const window::Window& win = pending_->window;
      RP_RETURN_IF_ERROR(Complete(pending_->graph, LastPhase(win)));
    }
    std::vector<std::unique_ptr<graph::WindowGraph>> done;
    RP_RETURN_IF_ERROR(AddTrailing(&done));
    attribution_.Finish();
    if (!attribution_.any_samples()) {
      spdlog::info("the trace has no samples: path profiles and differences name the function calling the MPI "
                   "call that ends each task (rp-record --sample-hz 200 names the code that computes)");
    }
    std::vector<double> percentiles;
    for (int j = 0; j < config_.k; ++j) percentiles.push_back(NominalPercentile(j, config_.k));
    const std::vector<std::pair<int, int>> pairs =
        config_.select == Select::kTopK ? std::vector<std::pair<int, int>>{{0, config_.k - 1}} : Pairs(config_.k);
    return profiles_.Write(attribution_.tree(), pairs, percentiles, config_.space == Space::kProf, out_);
  }

  // 100% against 0%, and the two around the median.
  static std::vector<std::pair<int, int>> Pairs(int k) {
    std::vector<std::pair<int, int>> pairs{{0, k - 1}};
    const std::pair<int, int> middle = k % 2 ? std::pair<int, int>{k / 2 - 1, k / 2 + 1} : std::pair<int, int>{k / 2 - 1, k / 2};
    if (middle != pairs[0] && middle.first >= 0) pairs.push_back(middle);
    return pairs;
  }

  bool any_calls() const { return started_; }

  // The windows without calls held behind the pending one: their samples.
  Status AddTrailing(std::vector<std::unique_ptr<graph::WindowGraph>>* done) {
    for (auto& t : trailing_) {
      attribution_.ForgetBefore(INT64_MAX);
      RP_RETURN_IF_ERROR(attribution_.AddWindow(t->window, run_start_));
      done->push_back(std::move(t));
    }
    trailing_.clear();
    return OkStatus();
  }
  bool tagged() const { return tagged_; }

  // A phase record: its cluster (the first phase's record comes before
  // the first call, among the dictionary records).
  Status NotePhase(std::string_view line) {
    RP_RETURN_IF_ERROR(decoder_.DecodeCopy(line, &record_));
    if (record_.phase.has_cluster()) cluster_of_[record_.phase.id] = record_.phase.cluster;
    return OkStatus();
  }

 private:
  // kNone when the events carry no phase.
  static int32_t LastPhase(const window::Window& w) {
    int32_t last = kNone;
    for (const window::Event& e : w.events) last = std::max(last, e.phase);
    return last;
  }

  Status NotePhases(const window::Window& w) {
    for (const window::Line& r : w.lines) {
      if (r.type == trace::RecordType::kPhase) RP_RETURN_IF_ERROR(NotePhase(w.text(r)));
    }
    return OkStatus();
  }

  // The phase's paths: those representing every path at each rank's last
  // call of it.
  Status Complete(const graph::Graph& g, int32_t phase) {
    const window::Window& w = g.window();
    // Each rank's last call of the phase; the phase's time, from the
    // earliest of its first tasks' starts to the last call's end (its
    // entry for MPI_Finalize), the span its paths can cover.
    std::vector<uint32_t> last(g.ranks(), graph::kNoNode);
    int64_t start = INT64_MAX, end = INT64_MIN;
    for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
      int64_t before = rank < carried_.size() && carried_[rank].started ? carried_[rank].time : run_start_;
      bool first = true;
      for (uint32_t e : w.by_rank[rank]) {
        const window::Event& ev = w.events[e];
        if (ev.phase != phase) {
          before = ev.t1;
          continue;
        }
        if (first && ev.category() != mpi::Category::kInit) {
          start = std::min(start, std::max(before, run_start_));
          first = false;
        }
        last[rank] = e;
        end = std::max(end, ev.bounds_application() ? ev.t0 : ev.t1);
      }
    }
    // A phase of MPI_Init alone has no tasks: no paths to show.
    if (start == INT64_MAX) return OkStatus();
    std::vector<uint32_t> nodes;
    for (uint32_t e : last) {
      if (e != graph::kNoNode) nodes.push_back(graph::Exit(e));
    }
    std::vector<int> positions;
    int total = 0;
    const std::vector<Candidate> kept = sets_.Union(g, nodes, &positions, &total);
    int64_t cluster = -1;
    if (auto it = cluster_of_.find(phase); it != cluster_of_.end()) cluster = it->second;
    if (phase == kNone) start = run_start_;  // the run as one phase, maybe over many windows
    const int64_t span = start < end ? end - start : 0;
    const int64_t profile_cluster = phase == kNone ? PathProfiles::kRun : std::max<int64_t>(cluster, 0);
    for (size_t j = 0; j < kept.size(); ++j) {
      // Fewer paths than k (a phase with few candidates): each goes to the
      // slot of its percentile, so slot j means the same in every phase.
      const int slot = Slot(positions[j], total);
      std::vector<PathTask> tasks;
      Walk(g, kept[j], &tasks, profile_cluster, slot);
      profiles_.AddPathCost(profile_cluster, slot, kept[j].cost);
      if (config_.space == Space::kProf) continue;
      // One interval per run of tasks on one rank.
      std::vector<trace::PathIntervalRecord> intervals;
      std::set<int64_t> ranks;
      for (const PathTask& t : tasks) {
        ranks.insert(t.rank);
        if (!intervals.empty() && intervals.back().rank == t.rank) {
          trace::PathIntervalRecord& i = intervals.back();
          i.set_last(t.seq);
          i.set_t1(t.t1);
          i.set_cost(i.cost + t.cost);
          i.set_tasks(i.tasks + 1);
          continue;
        }
        trace::PathIntervalRecord& i = intervals.emplace_back();
        if (phase != kNone) i.set_phase(phase);
        i.set_path(static_cast<int64_t>(j) + 1);
        i.set_rank(t.rank);
        i.set_first(t.seq);
        i.set_last(t.seq);
        i.set_t0(t.t0);
        i.set_t1(t.t1);
        i.set_cost(t.cost);
        i.set_tasks(1);
      }
      trace::PathRecord r;
      if (phase != kNone) r.set_phase(phase);
      if (cluster >= 0) r.set_cluster(cluster);
      r.set_order(static_cast<int64_t>(j) + 1);
      r.set_percentile(Percentile(static_cast<int>(j), positions[j], total, static_cast<int>(kept.size())));
      r.set_cost(kept[j].cost);
      if (span > 0) r.set_share(static_cast<double>(kept[j].cost) / static_cast<double>(span));
      r.set_ranks(std::vector<int64_t>(ranks.begin(), ranks.end()));
      r.set_tasks(static_cast<int64_t>(tasks.size()));
      r.set_intervals(static_cast<int64_t>(intervals.size()));
      RP_RETURN_IF_ERROR(out_.Write(r));
      for (const trace::PathIntervalRecord& i : intervals) RP_RETURN_IF_ERROR(out_.Write(i));
    }
    return OkStatus();
  }

  // repr: the nominal percentiles when all k were chosen; otherwise (fewer
  // candidates, or topk) the place among the phase's final candidates.
  double Percentile(int j, int position, int total, int kept) const {
    if (config_.select == Select::kRepr && kept == config_.k) return NominalPercentile(j, config_.k);
    return total > 1 ? 100.0 * (1.0 - static_cast<double>(position) / (total - 1)) : 100.0;
  }

  // The profile slot of the path at `position` of `total` candidates: the
  // slot whose nominal percentile is nearest its place; with all k kept,
  // its order.
  int Slot(int position, int total) const {
    if (total <= 1) return 0;
    if (config_.select == Select::kTopK && total >= config_.k) {
      const int top = config_.k / 2;
      return position < top ? position : config_.k - (total - position);
    }
    // position (k - 1) / (total - 1), rounded half up: with repr over at
    // least k candidates, the inverse of Choose's round(j (total - 1) / (k - 1)).
    return static_cast<int>((2 * int64_t{position} * (config_.k - 1) + (total - 1)) / (2 * int64_t{total - 1}));
  }

  // A kept path's tasks: earlier windows' parts, then this window's; their
  // code goes to slot j's profile in `cluster`.
  void Walk(const graph::Graph& g, const Candidate& path, std::vector<PathTask>* out, int64_t cluster, int j) {
    const PathSets::Origin origin = sets_.Tasks(g, path, &tasks_);
    out->clear();
    int32_t part = origin.carried_rank >= 0 ? Head(origin.carried_rank, origin.carried_slot) : -1;
    std::vector<int32_t> chain;
    for (; part >= 0; part = parts_[part].prev) chain.push_back(part);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      out->insert(out->end(), parts_[*it].tasks.begin(), parts_[*it].tasks.end());
      const std::vector<profile::Share>& shares = parts_[*it].shares;
      profiles_.AddShares(cluster, j, shares.data(), shares.data() + shares.size(), attribution_.tree());
    }
    AppendTasks(g, out);
    for (const Task& t : tasks_) {
      const profile::Attribution::Computation c = attribution_.Before(t.event);
      profiles_.AddShares(cluster, j, c.begin, c.end, attribution_.tree());
    }
  }

  // tasks_ as written; the time before MPI_Init is not the application's.
  void AppendTasks(const graph::Graph& g, std::vector<PathTask>* out) const {
    for (const Task& t : tasks_) {
      const window::Event& ev = g.window().events[t.event];
      if (ev.category() == mpi::Category::kInit) continue;
      out->push_back({ev.rank, ev.seq, t.t0, t.t1, t.cost});
    }
  }

  int32_t Head(int32_t rank, int slot) const {
    if (static_cast<size_t>(rank) >= heads_.size() || static_cast<size_t>(slot) >= heads_[rank].size()) return -1;
    return heads_[rank][slot];
  }

  // The phase runs on past `w`: each rank's paths so far become parts.
  void Continue(const graph::WindowGraph& w) {
    const graph::Graph& g = w.graph;
    std::vector<std::vector<int32_t>> heads(std::max(heads_.size(), g.ranks()));
    std::map<std::pair<uint32_t, uint32_t>, int32_t> made;  // by (node, slot): paths shared through hubs
    for (size_t rank = 0; rank < g.ranks(); ++rank) {
      const uint32_t last = g.last_event(rank);
      if (last == graph::kNoNode) {
        if (rank < heads_.size()) heads[rank] = heads_[rank];  // no calls here: its paths stand
        for (int32_t h : heads[rank]) Retain(h);
        continue;
      }
      const uint32_t exit = graph::Exit(last);
      for (const Candidate* c = sets_.begin(exit); c != sets_.end(exit); ++c) {
        const uint32_t slot = static_cast<uint32_t>(c - sets_.begin(exit));
        const Candidate at{c->cost, exit, slot};
        const std::pair<uint32_t, uint32_t> key{c->from, c->slot};
        auto [it, fresh] = made.emplace(key, -1);
        if (fresh) {
          const PathSets::Origin origin = sets_.Tasks(g, at, &tasks_);
          Part part;
          part.prev = origin.carried_rank >= 0 ? Head(origin.carried_rank, origin.carried_slot) : -1;
          Retain(part.prev);
          AppendTasks(g, &part.tasks);
          for (const Task& t : tasks_) {
            const profile::Attribution::Computation comp = attribution_.Before(t.event);
            part.shares.insert(part.shares.end(), comp.begin, comp.end);
          }
          it->second = NewPart(std::move(part));
        }
        Retain(it->second);
        heads[rank].push_back(it->second);
      }
    }
    for (auto& rank : heads_) {
      for (int32_t h : rank) Release(h);
    }
    heads_ = std::move(heads);
    sets_.Carry(g, &carried_);
  }

  int32_t NewPart(Part part) {
    int32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
      parts_[id] = std::move(part);
    } else {
      id = static_cast<int32_t>(parts_.size());
      parts_.push_back(std::move(part));
    }
    parts_[id].refs = 0;  // the heads that take it retain it
    return id;
  }
  void Retain(int32_t id) {
    if (id >= 0) ++parts_[id].refs;
  }
  void Release(int32_t id) {
    while (id >= 0 && --parts_[id].refs == 0) {
      const int32_t prev = parts_[id].prev;
      parts_[id].tasks = {};
      parts_[id].shares = {};
      free_.push_back(id);
      id = prev;
    }
  }

  const StageConfig& config_;
  trace::Writer& out_;
  PathSets sets_;
  std::vector<RankSet> carried_;
  std::unique_ptr<graph::WindowGraph> pending_;
  std::vector<std::unique_ptr<graph::WindowGraph>> trailing_;  // without calls, after pending_
  bool started_ = false, tagged_ = false;
  int64_t run_start_ = 0;
  std::map<int64_t, int64_t> cluster_of_;  // phase id -> cluster (rp-phases)
  std::vector<Part> parts_;
  std::vector<int32_t> free_;
  std::vector<std::vector<int32_t>> heads_;  // by rank, slot of its carried set
  std::vector<Task> tasks_;
  profile::Attribution attribution_;
  PathProfiles profiles_;
  trace::LineDecoder decoder_;
  trace::Record record_;
};

}  // namespace

Status Run(const StageConfig& config, trace::InputSet& input, trace::Writer& out) {
  if (config.k < kMinPaths || config.k > kMaxPaths) {
    return InputError("k must be between " + std::to_string(kMinPaths) + " and " +
                                std::to_string(kMaxPaths) + ", not " + std::to_string(config.k));
  }
  window::WindowReader windows(input, window::Boundaries::kClean, config.read);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-repr ") + kVersion, &out, nullptr,
                                          !config.passthrough));
  Stage stage(config, dict, out);
  for (size_t i = 0; i < dict.prelude_types.size(); ++i) {
    if (dict.prelude_types[i] == trace::RecordType::kPhase) RP_RETURN_IF_ERROR(stage.NotePhase(dict.prelude_lines[i]));
  }
  int64_t backward = 0;
  {
    graph::WindowGraphs source(windows, 1);
    for (;;) {
      RP_ASSIGN_OR_RETURN(std::unique_ptr<graph::WindowGraph> p, source.Next());
      if (!p) break;
      backward += p->graph.problems().backward_edges;
      std::vector<std::unique_ptr<graph::WindowGraph>> done;
      RP_RETURN_IF_ERROR(stage.AddWindow(std::move(p), &done));
      for (auto& d : done) source.Recycle(std::move(d));
    }
    window::WarnAboutInput(windows);
    if (!stage.any_calls()) return NothingError("the trace has no mpi records: no paths");
    RP_RETURN_IF_ERROR(stage.Finish());
  }
  if (!stage.tagged()) {
    spdlog::info("no phase records (rp-phases): the whole run is one phase");
  }
  if (backward > 0) {
    spdlog::warn("{} dependencies go back in time (a receive ends before its send began): the clocks are not "
                 "synchronized; run rp-clocksync first. The paths miss them.",
                 backward);
  }
  return out.Close();
}

}  // namespace rp::repr
