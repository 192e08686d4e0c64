#include "lib/repr/parallel.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "lib/base/version.h"
#include "lib/dist/judge.h"
#include "lib/dist/stage.h"
#include "lib/graph/distributed.h"
#include "lib/match/distributed.h"
#include "lib/phases/distributed.h"
#include "lib/profile/attribution.h"
#include "lib/repr/distributed.h"
#include "lib/repr/part_chain.h"
#include "lib/repr/path_profile.h"
#include "lib/repr/path_records.h"
#include "lib/repr/path_summary.h"
#include "lib/repr/spans.h"

namespace rp::repr {
namespace {

using window::kNone;

// An interval of a path with where it lies on the path: the window whose
// walk found it and the walk's round there (a walk goes back along the
// path, so a later round is earlier on it). The pieces of all processes
// sorted by (window, round descending) are in the path's order.
struct Piece {
  int64_t window = 0;
  int32_t round = 0;
  Interval interval;
};
static_assert(std::is_trivially_copyable_v<Piece>);

// Appends a task or interval, merging it into the last piece when both are
// on one rank in one round of one walk (other processes' pieces may lie
// between two rounds).
void PushPiece(std::vector<Piece>* pieces, const Piece& next) {
  if (!pieces->empty() && pieces->back().window == next.window && pieces->back().round == next.round &&
      pieces->back().interval.rank == next.interval.rank) {
    return Join(&pieces->back().interval, next.interval);
  }
  pieces->push_back(next);
}

// What this process holds of a stretch of a path (a part, or parts end to
// end): its ranks' pieces, and their code. Where the stretch's first task
// (over every process) is this process's first piece, and its last task
// the last piece, a stretch just before or after it on the path that
// meets it on the same rank joins it into one piece, as rp-repr's Push
// joins intervals: a path that stays on a rank keeps one piece, not one a
// window.
struct Portion {
  std::vector<Piece> pieces;
  OwnerCosts code;
  bool covers = false;  // any stretch (a fresh portion has none)
  bool first_is_first = false, last_is_last = false;

  // `later` is the stretch right after this one on the path.
  void Add(const Portion& later) {
    code.Add(later.code);
    code.Normalize();
    if (!later.covers) return;
    if (!covers) {
      pieces = later.pieces;
      covers = true, first_is_first = later.first_is_first, last_is_last = later.last_is_last;
      return;
    }
    auto next = later.pieces.begin();
    if (last_is_last && later.first_is_first && !pieces.empty() && next != later.pieces.end() &&
        pieces.back().interval.rank == next->interval.rank) {
      // The joined piece sorts where this stretch's last did: after its
      // window's other pieces, before the later window's.
      Join(&pieces.back().interval, next->interval);
      ++next;
    }
    pieces.insert(pieces.end(), next, later.pieces.end());
    last_is_last = later.last_is_last && !later.pieces.empty();
  }
};

// This process's tasks of walk `j` (WalkAcross's, with their rounds) as a
// portion. The time before MPI_Init is not the application's: not a task.
Portion Summarize(const graph::Graph& g, const std::vector<Task>& tasks, const WalkRounds& rounds, size_t j,
                  int64_t window, const profile::Attribution& attribution, bool keep_summary) {
  Portion out;
  out.covers = true;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    const window::Event& ev = g.window().events[t.event];
    if (ev.category() == mpi::Category::kInit) continue;
    if (keep_summary) {
      PushPiece(&out.pieces, {window, rounds.of_task[j][i], {ev.rank, ev.seq, ev.seq, t.t0, t.t1, t.cost, 1}});
    }
    const profile::Attribution::Computation c = attribution.Before(t.event);
    out.code.Add(c.begin, c.end, attribution.tree());
  }
  out.code.Normalize();
  // The walk's first task found in its highest round with tasks, its last
  // in its lowest (round 0 may have found none: a walk that starts at a
  // collective's exit whose member is another process's rank).
  out.first_is_first = !out.pieces.empty() && out.pieces.front().round == rounds.last[j];
  out.last_is_last = !out.pieces.empty() && out.pieces.back().round == rounds.first[j];
  return out;
}

// One propagation of path sets over the windows (the run's, or the
// phases'), as rp-repr's Track, over processes: the chain of parts (which
// part a part continues, how many heads and parts hold it) is the same on
// every process, decided from every rank's heads; each part's portion is
// what this process's ranks ran of it.
class Track {
 public:
  Track(const Config& config, bool keep_summary) : sets(config), keep_summary_(keep_summary) {}

  PathSets sets;
  std::vector<RankSet> carried;  // this process's ranks', after the last window
  int64_t heads_received = 0;    // bytes of the other processes' heads (for -v)

  int32_t Head(int64_t rank, int64_t slot) const {
    if (rank < 0 || static_cast<size_t>(rank) >= heads_.size() || slot < 0 ||
        static_cast<size_t>(slot) >= heads_[rank].size()) {
      return -1;
    }
    return heads_[rank][slot];
  }
  bool has_heads(size_t rank) const { return rank < heads_.size() && !heads_[rank].empty(); }
  // Parts held, and this process's pieces of them (for -v).
  std::pair<size_t, size_t> held() const {
    size_t parts = 0, pieces = 0;
    parts_.ForEachHeld([&](const Portion& p) { ++parts, pieces += p.pieces.size(); });
    return {parts, pieces};
  }
  int32_t prev(int32_t id) const { return parts_.prev(id); }
  const Portion& portion(int32_t id) const { return parts_.content(id); }

  // The window is done with: each rank's paths so far become parts when
  // `keep` (alike on every process), and the carried sets. `ranks`: the
  // window's over every process.
  Status Continue(dist::Comm& comm, const match::Owners& owners, const graph::Graph& g, bool keep, int64_t ranks,
                  int64_t window, const profile::Attribution& attribution) {
    std::vector<std::vector<int32_t>> heads(std::max(heads_.size(), static_cast<size_t>(ranks)));
    if (keep) RP_RETURN_IF_ERROR(NewHeads(comm, owners, g, window, attribution, &heads));
    parts_.ReplaceHeads(&heads_, std::move(heads));
    sets.Carry(g, &carried);
    return OkStatus();
  }

 private:
  // A path at a rank's last exit, as every process learns it (32 bytes:
  // every rank's k of them go to every process each window).
  struct HeadPath {
    int64_t cost;
    // Where it really came from (PathSets::Source), named by its event's
    // rank and seq and the node's side: one part per path.
    int64_t source_seq;
    int32_t source_rank;
    uint32_t exit;  // where it is, on the rank's process
    uint8_t source_side, source_slot, slot;
    auto source() const { return std::make_tuple(source_rank, source_seq, source_side, source_slot); }
  };
  static_assert(std::is_trivially_copyable_v<HeadPath> && sizeof(HeadPath) == 32);

  Status NewHeads(dist::Comm& comm, const match::Owners& owners, const graph::Graph& g, int64_t window,
                  const profile::Attribution& attribution, std::vector<std::vector<int32_t>>* heads) {
    dist::Packer mine;
    for (size_t rank = 0; rank < g.ranks(); ++rank) {
      const uint32_t last = g.last_event(rank);
      if (last == graph::kNoNode) continue;
      const uint32_t exit = graph::Exit(last);
      mine.Put<int64_t>(static_cast<int64_t>(rank));
      mine.Put<uint8_t>(static_cast<uint8_t>(sets.end(exit) - sets.begin(exit)));
      for (const Candidate* c = sets.begin(exit); c != sets.end(exit); ++c) {
        const auto [from, from_slot] = sets.Source(g, c->from, c->slot);
        const window::Event& source = g.event(from);
        HeadPath h{};  // zeroed padding: the bytes sent are all defined
        h.cost = c->cost;
        h.source_seq = source.seq;
        h.source_rank = static_cast<int32_t>(source.rank);
        h.exit = exit;
        h.source_side = graph::IsExit(from) ? 1 : 0;
        h.source_slot = static_cast<uint8_t>(from_slot);  // a slot is below k <= 64
        h.slot = static_cast<uint8_t>(c - sets.begin(exit));
        mine.Put(h);
      }
    }
    RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm.Allgather(mine.bytes()));
    for (size_t p = 0; p < all.size(); ++p) heads_received += p == static_cast<size_t>(comm.rank()) ? 0 : all[p].size();
    // Every rank with calls here, by rank, and its paths.
    std::map<int64_t, std::vector<HeadPath>> by_rank;
    for (size_t p = 0; p < all.size(); ++p) {
      dist::Unpacker in(all[p]);
      while (!in.done() && !in.bad()) {
        const int64_t rank = in.Get<int64_t>();
        std::vector<HeadPath>& paths = by_rank[rank];
        for (int n = in.Get<uint8_t>(); n > 0 && !in.bad(); --n) paths.push_back(in.Get<HeadPath>());
        if (owners.Of(rank) != static_cast<int>(p)) in.Fail();
      }
      if (in.bad()) return InputError("process " + std::to_string(p) + " sent damaged path heads");
    }
    // Each path once, walked where its rank is read.
    std::map<std::tuple<int32_t, int64_t, uint8_t, uint8_t>, size_t> walk_of;
    std::vector<Kept> walks;
    for (const auto& [rank, paths] : by_rank) {
      for (const HeadPath& h : paths) {
        if (walk_of.emplace(h.source(), walks.size()).second) {
          walks.push_back({h.cost, owners.Of(rank), h.exit, h.slot});
        }
      }
    }
    std::vector<std::vector<Task>> tasks;
    std::vector<PathSets::Origin> origins;
    WalkRounds rounds;
    RP_RETURN_IF_ERROR(WalkAcross(comm, owners, sets, g, walks, &tasks, &origins, &rounds));
    // The parts in rp-repr's order (by rank, then slot), alike everywhere.
    std::vector<int32_t> part_of(walks.size(), -1);
    for (size_t rank = 0; rank < heads->size(); ++rank) {
      auto it = by_rank.find(static_cast<int64_t>(rank));
      if (it == by_rank.end()) {
        if (rank < heads_.size()) (*heads)[rank] = heads_[rank];  // no calls here: its paths stand
        for (int32_t h : (*heads)[rank]) parts_.Retain(h);
        continue;
      }
      for (const HeadPath& h : it->second) {
        const size_t w = walk_of.at(h.source());
        if (part_of[w] < 0) {
          part_of[w] = parts_.New(Head(origins[w].carried_rank, origins[w].carried_slot),
                                  Summarize(g, tasks[w], rounds, w, window, attribution, keep_summary_));
        }
        parts_.Retain(part_of[w]);
        (*heads)[rank].push_back(part_of[w]);
      }
    }
    return OkStatus();
  }

  bool keep_summary_;
  PartChain<Portion> parts_;  // the chain alike everywhere; each content this process's portion
  std::vector<std::vector<int32_t>> heads_;  // by rank (every process's), slot of its carried set
};

// A path's code by calling context (the trace's site ids, innermost
// first), as another process's tree names it.
void PackCode(const OwnerCosts& code, const profile::ContextTree& tree, dist::Packer* out) {
  out->Put<uint64_t>(code.costs().size());
  for (const auto& [owner, ns] : code.costs()) {
    const std::vector<int64_t> path = tree.Path(owner);
    out->Put<uint32_t>(static_cast<uint32_t>(path.size()));
    for (int64_t site : path) out->Put(site);
    out->Put(ns);
  }
}
void UnpackCode(dist::Unpacker* in, profile::ContextTree& tree, OwnerCosts* code) {
  std::vector<int64_t> path;
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    const uint32_t sites = in->Get<uint32_t>();
    if (sites > in->left() / sizeof(int64_t)) return in->Fail();
    path.resize(sites);
    for (int64_t& site : path) site = in->Get<int64_t>();
    code->Add(tree.Intern(path), in->Get<int64_t>());
  }
}

class ParallelRepr : public dist::WindowStage {
 public:
  ParallelRepr(const StageConfig& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files)
      : WindowStage(comm, input, files, config.read), config_(config),
        run_(Config{config.k, config.select, config.cost, /*reset_at_phase=*/false}, config.space == Space::kPath),
        phases_(Config{config.k, config.select, config.cost, /*reset_at_phase=*/true}, config.space == Space::kPath),
        profiles_(config.k) {}

 private:
  Status Start() override {
    RP_RETURN_IF_ERROR(CheckConfig(config_));
    RP_RETURN_IF_ERROR(windows_.Start());
    RP_RETURN_IF_ERROR(input_.RequireSplit("rp-repr-mpi"));
    const window::Dictionary& dict = windows_.dictionary();
    RP_ASSIGN_OR_RETURN(owners_, match::ShareOwners(comm_, input_.first_rank(), input_.last_rank()));
    RP_ASSIGN_OR_RETURN(const std::string prelude, window::PreludeText(dict, std::string("rp-repr ") + kVersion,
                                                                       nullptr, !config_.passthrough));
    RP_RETURN_IF_ERROR(config_.passthrough ? out_.Open(prelude, input_.first_rank() <= input_.last_rank())
                                           : out_.OpenStream(prelude));
    attribution_ = std::make_unique<profile::Attribution>(dict);
    return phase_ends_.NoteRecords(dict);
  }

  Status AddWindow(window::Window& w) override {
    match::Ghosts ghosts;
    RP_ASSIGN_OR_RETURN(const match::Matching matching,
                        match::MatchAcross(comm_, owners_, windows_.dictionary(), &w, &ghosts, &match_bytes_));
    graph::Graph g(w, matching, true);  // problems counted for this process's calls
    backward_ += g.problems().backward_edges;
    RP_RETURN_IF_ERROR(phase_ends_.Share(comm_, w));
    RP_RETURN_IF_ERROR(PassLines(w, config_.passthrough));
    RP_ASSIGN_OR_RETURN(writer_, Writer(config_.passthrough));
    RP_RETURN_IF_ERROR(AddGraph(w, g, ghosts));
    ++window_;
    return OkStatus();
  }

  Status AddGraph(const window::Window& w, graph::Graph& g, const match::Ghosts& ghosts) {
    attribution_->ForgetBefore(INT64_MAX);  // only the window's own tasks are asked for
    RP_ASSIGN_OR_RETURN(const graph::WindowExtent extent,
                        dist::AllreduceValue(comm_, graph::WindowExtent::Of(g)));
    attribution_->SeeRanks(extent.ranks);
    if (extent.events == 0) return attribution_->AddWindow(w, run_start_);  // samples after the last call
    if (!started_) {
      started_ = true;
      run_start_ = extent.start();
      phased_ = phase_ends_.Phased();
    }
    RP_RETURN_IF_ERROR(attribution_->AddWindow(w, run_start_));
    RP_RETURN_IF_ERROR(Propagate(g, ghosts, run_));
    spans_.Note(w, run_.carried, run_start_, phased_);
    if (phased_) {
      // A phase that ran on into this window but has no calls here ended
      // where the last window did.
      for (int32_t phase : phase_ends_.EndedBefore()) RP_RETURN_IF_ERROR(Complete(phases_, nullptr, phase));
      RP_RETURN_IF_ERROR(Propagate(g, ghosts, phases_));
      for (int32_t phase : phase_ends_.EndedIn()) RP_RETURN_IF_ERROR(Complete(phases_, &g, phase));
      RP_RETURN_IF_ERROR(phases_.Continue(comm_, owners_, g, phase_ends_.ends().any_open(), extent.ranks, window_,
                                          *attribution_));
    }
    return run_.Continue(comm_, owners_, g, true, extent.ranks, window_, *attribution_);
  }

  Status Propagate(graph::Graph& g, const match::Ghosts& ghosts, Track& track) {
    SetsPass pass(g, &track.sets, track.carried, run_start_);
    return graph::Replay(comm_, g, ghosts, pass, &stats_);
  }

  // rp-repr's Complete over processes: the paths of `phase` (kNone: the
  // run, on track run_) that represent every path at each rank's last call
  // of it, in window `g` (null when none of its calls is there) or in a
  // rank's carried set. Every process calls it; the writer writes them,
  // process 0 adds them to the profiles.
  Status Complete(Track& track, const graph::Graph* g, int32_t phase) {
    const bool run = phase == kNone;
    RP_ASSIGN_OR_RETURN(const Span span,
                        dist::AllreduceValue(comm_, run ? spans_.run(run_start_) : spans_.Take(phase)));
    // A phase of MPI_Init alone has no tasks: no paths to show.
    if (span.start == INT64_MAX) return OkStatus();
    std::vector<uint32_t> nodes;
    std::vector<bool> here(track.carried.size());
    LastExits(g, phase, &nodes, &here);
    std::vector<PathSets::Ended> ended;
    std::vector<std::pair<int64_t, int64_t>> ended_at;  // rank, slot
    RP_RETURN_IF_ERROR(Ended(track, run, phase, here, &ended, &ended_at));
    std::vector<int> positions;
    int total = 0;
    RP_ASSIGN_OR_RETURN(const std::vector<Kept> kept,
                        UnionAcross(comm_, track.sets, g, nodes,
                                    comm_.rank() == 0 ? ended : std::vector<PathSets::Ended>{}, &positions, &total));
    std::vector<std::vector<Task>> tasks(kept.size());
    std::vector<PathSets::Origin> origins(kept.size());
    WalkRounds rounds;
    if (g != nullptr) RP_RETURN_IF_ERROR(WalkAcross(comm_, owners_, track.sets, *g, kept, &tasks, &origins, &rounds));
    // This process's pieces of each kept path to the writer, their code
    // to process 0 (which keeps the profiles).
    dist::Packer pieces, code;
    for (size_t j = 0; j < kept.size(); ++j) {
      const bool carried = kept[j].node == Candidate::kCarried;
      const int32_t head = carried ? track.Head(ended_at[kept[j].slot].first, ended_at[kept[j].slot].second)
                                   : track.Head(origins[j].carried_rank, origins[j].carried_slot);
      // Earlier windows' parts, oldest first, then this window's tasks:
      // packed as they are (the writer sorts and joins them).
      std::vector<const Portion*> stretch;
      for (int32_t part = head; part >= 0; part = track.prev(part)) stretch.push_back(&track.portion(part));
      std::reverse(stretch.begin(), stretch.end());
      Portion this_window;
      if (!carried) {
        this_window = Summarize(*g, tasks[j], rounds, j, window_, *attribution_, config_.space == Space::kPath);
        stretch.push_back(&this_window);
      }
      uint64_t n = 0;
      OwnerCosts path_code;
      for (const Portion* p : stretch) n += p->pieces.size(), path_code.Add(p->code);
      pieces.Put(n);
      for (const Portion* p : stretch) {
        for (const Piece& piece : p->pieces) pieces.Put(piece);
      }
      path_code.Normalize();
      PackCode(path_code, attribution_->tree(), &code);
    }
    std::vector<std::string> bytes(comm_.size());
    if (config_.space == Space::kPath) bytes[writer_] = std::move(pieces.bytes());
    bytes[0] += code.bytes();
    for (int p = 0; p < comm_.size(); ++p) paths_bytes_ += p == comm_.rank() ? 0 : bytes[p].size();
    RP_ASSIGN_OR_RETURN(const std::vector<std::string> in, comm_.Alltoallv(bytes));
    const bool writes = config_.space == Space::kPath && comm_.rank() == writer_;
    if (!writes && comm_.rank() != 0) return OkStatus();
    std::vector<Portion> paths(kept.size());
    for (int p = 0; p < comm_.size(); ++p) {
      dist::Unpacker from(in[p]);
      for (Portion& path : paths) {
        if (!writes) break;
        const uint64_t n = from.Get<uint64_t>();
        if (n > from.left() / sizeof(Piece)) from.Fail();
        for (uint64_t i = 0; i < n && !from.bad(); ++i) path.pieces.push_back(from.Get<Piece>());
      }
      for (Portion& path : paths) {
        if (comm_.rank() != 0) break;
        UnpackCode(&from, attribution_->tree(), &path.code);
      }
      if (from.bad() || !from.done()) return InputError("process " + std::to_string(p) + " sent damaged paths");
    }
    const int64_t cluster = phase_ends_.cluster(phase);
    for (size_t j = 0; j < kept.size(); ++j) {
      Portion& path = paths[j];
      if (comm_.rank() == 0) {
        // A phase without a cluster (phases tagged by another tool) is a
        // cluster of its own.
        const int64_t profile = run ? PathProfiles::kRun : cluster >= 0 ? cluster : phase;
        path.code.Normalize();
        profiles_.AddPath(profile, ProfileSlot(config_.select, config_.k, positions[j], total), path.code,
                          kept[j].cost);
      }
      if (!writes) continue;
      // The pieces in the path's order, joined as rp-repr's Push joins them.
      std::stable_sort(path.pieces.begin(), path.pieces.end(), [](const Piece& a, const Piece& b) {
        return a.window != b.window ? a.window < b.window : a.round > b.round;
      });
      std::vector<Interval> summary;
      for (const Piece& p : path.pieces) Push(&summary, p.interval);
      path.pieces = {};
      // Straight into the part (or the one stream): a path record, then an
      // interval record each.
      trace::Writer& out = config_.passthrough ? *out_.part() : *out_.index();
      if (config_.passthrough) out_.Count(1 + static_cast<int64_t>(summary.size()));
      RP_RETURN_IF_ERROR(WritePath({.phase = run ? -1 : phase,
                                    .cluster = cluster,
                                    .order = static_cast<int>(j),
                                    .percentile = Percentile(config_.select, config_.k, static_cast<int>(j),
                                                             positions[j], total, static_cast<int>(kept.size())),
                                    .cost = kept[j].cost,
                                    .length = span.start < span.end ? span.end - span.start : 0},
                                   summary, out));
    }
    return OkStatus();
  }

  // The paths of ranks whose last call of the phase was in an earlier
  // window: their carried paths, one entry per path (the part it ends
  // with), from every process, alike everywhere, as rp-repr lists them.
  Status Ended(const Track& track, bool run, int32_t phase, const std::vector<bool>& here,
               std::vector<PathSets::Ended>* ended, std::vector<std::pair<int64_t, int64_t>>* at) {
    struct Entry {
      int64_t rank, slot, cost, part;  // no padding: every byte sent is defined
    };
    dist::Packer mine;
    for (size_t rank = 0; rank < track.carried.size(); ++rank) {
      const RankSet& set = track.carried[rank];
      if (here[rank] || !set.started || (!run && set.phase != phase) || !track.has_heads(rank)) continue;
      for (size_t slot = 0; slot < set.paths.size(); ++slot) {
        mine.Put(Entry{static_cast<int64_t>(rank), static_cast<int64_t>(slot), set.paths[slot].cost,
                       track.Head(static_cast<int64_t>(rank), static_cast<int64_t>(slot))});
      }
    }
    RP_ASSIGN_OR_RETURN(const std::vector<std::string> all, comm_.Allgather(mine.bytes()));
    std::vector<Entry> entries;
    for (size_t p = 0; p < all.size(); ++p) {
      dist::Unpacker in(all[p]);
      while (!in.done() && !in.bad()) entries.push_back(in.Get<Entry>());
      if (in.bad()) return InputError("process " + std::to_string(p) + " sent damaged carried paths");
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return std::tie(a.rank, a.slot) < std::tie(b.rank, b.slot); });
    std::map<int64_t, size_t> by_part;
    for (const Entry& e : entries) {
      auto [it, fresh] = by_part.emplace(e.part, ended->size());
      if (fresh) {
        ended->push_back({e.cost, static_cast<uint32_t>(e.rank * config_.k + e.slot)});
        at->emplace_back(e.rank, e.slot);
      } else {
        (*ended)[it->second].cost = std::max((*ended)[it->second].cost, e.cost);
      }
    }
    return OkStatus();
  }

  Status Finish() override {
    RP_RETURN_IF_ERROR(dist::WarnAboutInputAcross(comm_, windows_, comm_.rank() == 0));
    if (!started_) {
      // Told once (mpirun exits with its status).
      return comm_.rank() == 0 ? NothingError("the trace has no mpi records: no paths") : OkStatus();
    }
    RP_ASSIGN_OR_RETURN(writer_, Writer(config_.passthrough));
    for (int32_t phase : phase_ends_.ends().Open()) RP_RETURN_IF_ERROR(Complete(phases_, nullptr, phase));
    RP_RETURN_IF_ERROR(Complete(run_, nullptr, kNone));
    attribution_->Finish();
    RP_ASSIGN_OR_RETURN(const dist::Sum samples,
                        dist::AllreduceValue(comm_, dist::Sum{attribution_->any_samples() ? 1 : 0}));
    RP_ASSIGN_OR_RETURN(const dist::Sum backward, dist::AllreduceValue(comm_, dist::Sum{backward_}));
    std::string profiles;  // process 0's
    if (comm_.rank() == 0) {
      trace::Writer writer(trace::StringOutput(&profiles));
      RP_RETURN_IF_ERROR(WriteProfiles(config_, profiles_, attribution_->tree(), writer));
      RP_RETURN_IF_ERROR(writer.Close());
    }
    RP_RETURN_IF_ERROR(SendToWriter(writer_, std::move(profiles), config_.passthrough));
    if (comm_.rank() == 0) {
      WarnAboutRun(phase_ends_.ends().reopened(), samples.value > 0, phased_, backward.value);
    }
    // For tests/bench/parallel_bench.sh's model.
    spdlog::debug("process {} of {}: {} windows, {} match bytes sent; path sets: {} rounds, {} bytes sent; heads: {} "
                  "bytes received; paths: {} bytes sent; parts held at the end: {} of the run's paths ({} pieces "
                  "here), {} of the phases'",
                  comm_.rank(), comm_.size(), window_, match_bytes_, stats_.rounds, stats_.bytes_sent,
                  run_.heads_received + phases_.heads_received, paths_bytes_, run_.held().first, run_.held().second,
                  phases_.held().first);
    return out_.Close(input_.first_rank(), input_.last_rank());
  }

  const StageConfig& config_;
  match::Owners owners_;
  Track run_;     // the whole run's paths
  Track phases_;  // each phase's, when the trace has phases
  phases::SharedPhaseEnds phase_ends_;
  std::unique_ptr<profile::Attribution> attribution_;
  PathProfiles profiles_;  // process 0's
  Spans spans_;
  bool started_ = false, phased_ = false;
  int64_t run_start_ = 0;
  int64_t window_ = 0;
  int64_t backward_ = 0;
  int64_t match_bytes_ = 0, paths_bytes_ = 0;  // sent (for -v)
  int writer_ = 0;  // who writes what follows the lines so far (Writer)
  graph::ReplayStats stats_;
};

}  // namespace

Status RunParallel(const StageConfig& config, dist::Comm& comm, trace::InputSet& input,
                   const dist::OutputFiles& files) {
  return ParallelRepr(config, comm, input, files).Run();
}

}  // namespace rp::repr
