#include "lib/repr/repr.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "lib/base/version.h"
#include "lib/graph/window_graphs.h"
#include "lib/phases/phase_ends.h"
#include "lib/profile/attribution.h"
#include "lib/repr/path_profile.h"
#include "lib/repr/path_records.h"
#include "lib/repr/part_chain.h"
#include "lib/repr/path_summary.h"
#include "lib/repr/spans.h"
#include "lib/trace/codec.h"

namespace rp::repr {
namespace {

using window::kNone;

// A part's tasks (part_chain.h): their summary (Space::kPath only) and code.
struct Tasks {
  std::vector<Interval> summary;
  OwnerCosts code;
  void Add(const Tasks& later) {
    for (const Interval& i : later.summary) Push(&summary, i);
    code.Add(later.code);
    code.Normalize();
  }
};

// One propagation of path sets over the windows, and the parts its paths
// have so far: the phases' (a path starts afresh at each phase) or the
// whole run's.
class Track {
 public:
  Track(const Config& config, bool keep_summary) : sets(config), keep_summary_(keep_summary) {}

  PathSets sets;
  std::vector<RankSet> carried;  // after the last window

  // The part slot `slot` of rank `rank`'s carried set ends with; -1 when
  // none (the path starts in this window, or its parts were not kept).
  int32_t Head(int32_t rank, int slot) const {
    if (static_cast<size_t>(rank) >= heads_.size() || static_cast<size_t>(slot) >= heads_[rank].size()) return -1;
    return heads_[rank][slot];
  }
  bool has_heads(int32_t rank) const { return static_cast<size_t>(rank) < heads_.size() && !heads_[rank].empty(); }
  const PartChain<Tasks>& parts() const { return parts_; }

  // The window `w` is done with: each rank's paths so far become parts
  // when `keep` (the run, or a phase that may run on), and become the
  // carried sets.
  void Continue(const graph::Graph& g, bool keep, const profile::Attribution& attribution) {
    std::vector<std::vector<int32_t>> heads(std::max(heads_.size(), g.ranks()));
    std::map<std::pair<uint32_t, uint32_t>, int32_t> made;  // by (node, slot): paths shared through hubs
    for (size_t rank = 0; keep && rank < heads.size(); ++rank) {
      const uint32_t last = rank < g.ranks() ? g.last_event(rank) : graph::kNoNode;
      if (last == graph::kNoNode) {
        if (rank < heads_.size()) heads[rank] = heads_[rank];  // no calls here: its paths stand
        for (int32_t h : heads[rank]) parts_.Retain(h);
        continue;
      }
      const uint32_t exit = graph::Exit(last);
      for (const Candidate* c = sets.begin(exit); c != sets.end(exit); ++c) {
        const uint32_t slot = static_cast<uint32_t>(c - sets.begin(exit));
        // One part per path: a path a hub fed reaches its members' exits
        // by different edges (a rooted-in collective's root by the hub,
        // the others by their own entries).
        auto [it, fresh] = made.emplace(sets.Source(g, c->from, c->slot), -1);
        if (fresh) {
          const PathSets::Origin origin = sets.Tasks(g, Candidate{c->cost, exit, slot}, &tasks_);
          Tasks part;
          Summarize(g, tasks_, attribution, keep_summary_ ? &part.summary : nullptr, &part.code);
          it->second =
              parts_.New(origin.carried_rank >= 0 ? Head(origin.carried_rank, origin.carried_slot) : -1, std::move(part));
        }
        parts_.Retain(it->second);
        heads[rank].push_back(it->second);
      }
    }
    parts_.ReplaceHeads(&heads_, std::move(heads));
    sets.Carry(g, &carried);
  }

  // A path's tasks `tasks` of window graph `g`: appended to `summary`
  // (unless null) and their code to `code` (not normalized). The time
  // before MPI_Init is not the application's: not a task.
  static void Summarize(const graph::Graph& g, const std::vector<Task>& tasks, const profile::Attribution& attribution,
                        std::vector<Interval>* summary, OwnerCosts* code) {
    for (const Task& t : tasks) {
      const window::Event& ev = g.window().events[t.event];
      if (ev.category() == mpi::Category::kInit) continue;
      if (summary != nullptr) Push(summary, {ev.rank, ev.seq, ev.seq, t.t0, t.t1, t.cost, 1});
      const profile::Attribution::Computation c = attribution.Before(t.event);
      code->Add(c.begin, c.end, attribution.tree());
    }
    code->Normalize();
  }

 private:
  bool keep_summary_;
  PartChain<Tasks> parts_;
  std::vector<std::vector<int32_t>> heads_;  // by rank, slot of its carried set
  std::vector<Task> tasks_;
};

class Stage {
 public:
  Stage(const StageConfig& config, const window::Dictionary& dict, trace::Writer& out)
      : config_(config), out_(out),
        run_(Config{config.k, config.select, config.cost, /*reset_at_phase=*/false}, config.space == Space::kPath),
        phases_(Config{config.k, config.select, config.cost, /*reset_at_phase=*/true}, config.space == Space::kPath),
        attribution_(dict), profiles_(config.k) {}

  Status AddWindow(const graph::WindowGraph& w) {
    const graph::Graph& g = w.graph;
    const window::Window& win = w.window;
    RP_RETURN_IF_ERROR(phase_ends_.NoteRecords(win));
    if (config_.passthrough) {
      for (const window::Line& r : win.lines) RP_RETURN_IF_ERROR(out_.WriteRaw(win.text(r)));
    }
    attribution_.ForgetBefore(INT64_MAX);  // only the window's own tasks are asked for
    if (win.events.empty()) return attribution_.AddWindow(win, run_start_);  // samples after the last call
    if (!started_) {
      started_ = true;
      run_start_ = g.application_start();
      phased_ = phase_ends_.Phased(win);
    }
    RP_RETURN_IF_ERROR(attribution_.AddWindow(win, run_start_));
    run_.sets.Run(g, run_.carried, run_start_);
    spans_.Note(win, run_.carried, run_start_, phased_);
    if (phased_) {
      // A phase that ran on into this window but has no calls here ended
      // where the last window did.
      for (int32_t phase : phase_ends_.EndedBefore(win)) RP_RETURN_IF_ERROR(Complete(phases_, nullptr, phase));
      phases_.sets.Run(g, phases_.carried, run_start_);
      for (int32_t phase : phase_ends_.EndedIn(win)) RP_RETURN_IF_ERROR(Complete(phases_, &g, phase));
      phases_.Continue(g, phase_ends_.any_open(), attribution_);
    }
    run_.Continue(g, true, attribution_);
    return OkStatus();
  }

  Status Finish() {
    for (int32_t phase : phase_ends_.Open()) RP_RETURN_IF_ERROR(Complete(phases_, nullptr, phase));
    if (started_) RP_RETURN_IF_ERROR(Complete(run_, nullptr, kNone));
    attribution_.Finish();
    return WriteProfiles(config_, profiles_, attribution_.tree(), out_);
  }

  bool any_calls() const { return started_; }
  bool phased() const { return phased_; }
  bool reopened() const { return phase_ends_.reopened(); }
  bool any_samples() const { return attribution_.any_samples(); }

  Status NoteRecords(const window::Dictionary& dict) { return phase_ends_.NoteRecords(dict); }

 private:
  // The paths of `phase` (kNone: the run, on track run_) that represent
  // every path at each rank's last call of it: in window `g` (null when
  // none of its calls is there), or in a rank's carried set when it made
  // no call of it since.
  Status Complete(Track& track, const graph::Graph* g, int32_t phase) {
    const bool run = phase == kNone;
    const Span span = run ? spans_.run(run_start_) : spans_.Take(phase);
    // A phase of MPI_Init alone has no tasks: no paths to show.
    if (span.start == INT64_MAX) return OkStatus();
    std::vector<uint32_t> nodes;
    std::vector<bool> here(track.carried.size());
    LastExits(g, phase, &nodes, &here);
    // Ranks whose last call of it was in an earlier window: their carried
    // paths, one entry per path (the part it ends with).
    std::vector<PathSets::Ended> ended;
    std::vector<std::pair<int32_t, int>> ended_at;  // rank, slot
    std::map<int32_t, size_t> by_part;
    for (size_t rank = 0; rank < track.carried.size(); ++rank) {
      const RankSet& set = track.carried[rank];
      if (here[rank] || !set.started || (!run && set.phase != phase) || !track.has_heads(rank)) continue;
      for (size_t slot = 0; slot < set.paths.size(); ++slot) {
        const int32_t part = track.Head(static_cast<int32_t>(rank), static_cast<int>(slot));
        auto [it, fresh] = by_part.emplace(part, ended.size());
        if (fresh) {
          ended.push_back({set.paths[slot].cost, static_cast<uint32_t>(rank * config_.k + slot)});
          ended_at.emplace_back(static_cast<int32_t>(rank), static_cast<int>(slot));
        } else {
          ended[it->second].cost = std::max(ended[it->second].cost, set.paths[slot].cost);
        }
      }
    }
    std::vector<int> positions;
    int total = 0;
    const std::vector<Candidate> kept = track.sets.Union(g, nodes, ended, &positions, &total);
    const int64_t cluster = phase_ends_.cluster(phase);
    const int64_t length = span.start < span.end ? span.end - span.start : 0;
    // A phase without a cluster (phases tagged by another tool) is a
    // cluster of its own.
    const int64_t profile = run ? PathProfiles::kRun : cluster >= 0 ? cluster : phase;
    for (size_t j = 0; j < kept.size(); ++j) {
      // Fewer paths than k (a phase with few candidates): each goes to the
      // slot of its percentile, so slot j means the same in every phase.
      const int slot = ProfileSlot(config_.select, config_.k, positions[j], total);
      std::vector<Interval> summary;
      OwnerCosts code;
      int32_t head = -1;
      if (kept[j].from == Candidate::kCarried) {
        const auto [rank, s] = ended_at[kept[j].slot];
        head = track.Head(rank, s);
      } else {
        const PathSets::Origin origin = track.sets.Tasks(*g, kept[j], &tasks_);
        if (origin.carried_rank >= 0) head = track.Head(origin.carried_rank, origin.carried_slot);
      }
      // Earlier windows' parts, oldest first, then this window's tasks.
      std::vector<int32_t> chain;
      for (int32_t part = head; part >= 0; part = track.parts().prev(part)) chain.push_back(part);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        for (const Interval& i : track.parts().content(*it).summary) Push(&summary, i);
        code.Add(track.parts().content(*it).code);
      }
      if (kept[j].from != Candidate::kCarried) {
        Track::Summarize(*g, tasks_, attribution_, config_.space == Space::kPath ? &summary : nullptr, &code);
      }
      code.Normalize();
      profiles_.AddPath(profile, slot, code, kept[j].cost);
      if (config_.space == Space::kProf) continue;
      const int kept_n = static_cast<int>(kept.size());
      RP_RETURN_IF_ERROR(WritePath({.phase = phase == kNone ? -1 : phase,
                                    .cluster = cluster,
                                    .order = static_cast<int>(j),
                                    .percentile = Percentile(config_.select, config_.k, static_cast<int>(j),
                                                             positions[j], total, kept_n),
                                    .cost = kept[j].cost,
                                    .length = length},
                                   summary, out_));
    }
    return OkStatus();
  }


  const StageConfig& config_;
  trace::Writer& out_;
  Track run_;     // the whole run's paths
  Track phases_;  // each phase's, when the trace has phases
  bool started_ = false, phased_ = false;
  int64_t run_start_ = 0;
  phases::PhaseEnds phase_ends_;
  Spans spans_;
  std::vector<Task> tasks_;
  profile::Attribution attribution_;
  PathProfiles profiles_;
};

}  // namespace

Status CheckConfig(const StageConfig& config) {
  if (config.k < kMinPaths || config.k > kMaxPaths) {
    return InputError("k must be between " + std::to_string(kMinPaths) + " and " + std::to_string(kMaxPaths) +
                      ", not " + std::to_string(config.k));
  }
  return OkStatus();
}

Status WriteProfiles(const StageConfig& config, const PathProfiles& profiles, const profile::ContextTree& tree,
                     trace::Writer& out) {
  std::vector<double> percentiles;
  for (int j = 0; j < config.k; ++j) percentiles.push_back(NominalPercentile(j, config.k));
  return profiles.Write(tree, DiffPairs(config.select, config.k), percentiles, config.space == Space::kProf, out);
}

void WarnAboutRun(bool reopened, bool samples, bool phased, int64_t backward) {
  if (reopened) {
    spdlog::warn("a phase has calls after its phase record's count of calls, or after a later phase: its paths "
                 "are told once per stretch");
  }
  if (!samples) {
    spdlog::info("the trace has no samples: path profiles and differences name the function calling the MPI "
                 "call that ends each task (rp-record --sample-hz 200 names the code that computes)");
  }
  if (!phased) spdlog::info("no phase records (rp-phases): the whole run is one phase");
  if (backward > 0) {
    spdlog::warn("{} dependencies go back in time (a receive ends before its send began): the clocks are not "
                 "synchronized; run rp-clocksync first. The paths miss them.",
                 backward);
  }
}

Status Run(const StageConfig& config, trace::InputSet& input, trace::Writer& out) {
  RP_RETURN_IF_ERROR(CheckConfig(config));
  window::WindowReader windows(input, window::Boundaries::kClean, config.read);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-repr ") + kVersion, &out, nullptr,
                                          !config.passthrough));
  Stage stage(config, dict, out);
  RP_RETURN_IF_ERROR(stage.NoteRecords(dict));
  int64_t backward = 0;
  {
    graph::WindowGraphs source(windows, 1);
    for (;;) {
      RP_ASSIGN_OR_RETURN(std::unique_ptr<graph::WindowGraph> p, source.Next());
      if (!p) break;
      backward += p->graph.problems().backward_edges;
      RP_RETURN_IF_ERROR(stage.AddWindow(*p));
      source.Recycle(std::move(p));
    }
    window::WarnAboutInput(windows);
    if (!stage.any_calls()) return NothingError("the trace has no mpi records: no paths");
    RP_RETURN_IF_ERROR(stage.Finish());
    WarnAboutRun(stage.reopened(), stage.any_samples(), stage.phased(), backward);
  }
  return out.Close();
}

}  // namespace rp::repr
