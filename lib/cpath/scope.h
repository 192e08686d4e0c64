// What rp-cpath adds up for the whole run and for each phase: the critical
// path's segments by kind, rank and call site, and every call's time where
// it went (computation before it, waiting, execution), for the profile's
// CP% next to time% (online critical path paper §3) and the imbalance
// metrics (mpi-graph paper §5.2).
#ifndef RP_LIB_CPATH_SCOPE_H_
#define RP_LIB_CPATH_SCOPE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/graph/imbalance.h"
#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/graph/imbalance.h"
#include "lib/graph/path.h"
#include "lib/window/event.h"

namespace rp::cpath {

struct SiteStats {
  int64_t cp_compute = 0, cp_mpi = 0;
  int64_t time_compute = 0, time_mpi = 0, calls = 0;
  int64_t wait_before = 0, wait_after = 0, execution = 0;
  int32_t fn = -1;  // the MPI function called there
  int64_t cp() const { return cp_compute + cp_mpi; }
  int64_t time() const { return time_compute + time_mpi; }
};

struct RankStats {
  int64_t cp = 0, compute = 0, wait_before = 0, wait_after = 0, execution = 0;
  int64_t rp_setup = 0;  // the collector's own work in MPI_Init and MPI_Finalize
};

// The run, or one phase.
struct Scope {
  int64_t start = INT64_MAX, end = INT64_MIN;  // of its calls
  int64_t length = 0, segments = 0;
  int64_t by_kind[graph::kSegmentKinds] = {};  // by graph::SegmentKind; waits and rp by their duration
  int32_t last_rank = -1;   // where its part of the path ends
  int64_t last_time = INT64_MIN;  // and when that segment starts
  int64_t rp_all = 0;       // the collector's own work in the calls of all ranks
  // Outside the application's time: the longest MPI_Init and MPI_Finalize
  // of a rank (their MPI part).
  int64_t init = 0, finalize = 0;
  // Online, measured in MPI_Pcontrol regions: how many (0: the whole run).
  int32_t regions = 0;
  // Online with samples (no CodeProfile to ask): the samples that named
  // the path's computation, and how it was named (cp_summary's fields).
  struct Sampled {
    int64_t samples = 0, compute_sampled = 0, compute_nearest = 0, compute_by_site = 0;
  };
  std::optional<Sampled> sampled;
  std::map<int32_t, SiteStats> sites;
  std::vector<RankStats> ranks;

  RankStats& Rank(int32_t rank) {
    if (static_cast<size_t>(rank) >= ranks.size()) ranks.resize(rank + 1);
    return ranks[rank];
  }
  void AddSegment(const graph::Segment& s);
  // A call, with the computation since its rank's previous call. Of
  // MPI_Init and MPI_Finalize, outside the application's time, only their
  // length and the computation before MPI_Finalize count.
  void AddCall(const window::Event& e, int64_t compute_before, const graph::CallTimes& t);
  // The longest set-up and tear-down of the collector on a rank.
  int64_t rp_setup() const;
  // Every rank's times added up: the program (mpi-graph §5.2).
  RankStats program() const;
  int64_t total_time() const;
  // Sites by critical-path time, then by id.
  std::vector<int32_t> ProfileOrder() const;

  // A distributed analysis: what each process added up of its ranks'
  // calls and its part of the path, summed (a site's function is the one
  // its calls make: the same on every process).
  void Add(const Scope& other);
  void Pack(dist::Packer* out) const;
  static Expected<Scope> Unpack(dist::Unpacker* in);
};

// Every call of a window's own ranks (not ghosts) into `run` and, when
// rp-phases tagged it and `phases` is given, its phase's scope, with the
// computation since its rank's previous call (`last_exit`, by rank, kept
// from window to window; the run's start before a rank's first call).
// Returns the highest phase of a call, or window::kNone.
int64_t AddCalls(const graph::Graph& g, const std::vector<graph::CallTimes>& times, int64_t run_start,
                 std::vector<int64_t>* last_exit, Scope* run, std::map<int64_t, Scope>* phases);

// What the graph could not model, for the summary and the warnings.
struct Problems {
  graph::GraphProblems graph;
  int64_t unmatched_sends = 0, unmatched_receives = 0, unresolved_receives = 0;
  int64_t incomplete_ranks = 0;
  std::vector<std::string> examples;
  // What a window's graph and matching left out.
  void Count(const graph::GraphProblems& g, const match::Matching& m);
  bool partial() const {
    return graph.backward_edges || graph.cycle_edges || unmatched_sends || unmatched_receives ||
           unresolved_receives || incomplete_ranks;
  }
};

inline double Share(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / whole : 0.0; }

}  // namespace rp::cpath

#endif  // RP_LIB_CPATH_SCOPE_H_
