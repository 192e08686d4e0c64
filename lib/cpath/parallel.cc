#include "lib/cpath/parallel.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <type_traits>
#include <vector>

#include "lib/base/version.h"
#include "lib/cpath/records.h"
#include "lib/cpath/scope.h"
#include "lib/dist/judge.h"
#include "lib/graph/distributed_path.h"
#include "lib/graph/imbalance.h"
#include "lib/match/distributed.h"
#include "lib/dist/place.h"
#include "lib/dist/stage.h"
#include "lib/dist/split_output.h"

namespace rp::cpath {
namespace {

using graph::Segment;
using window::kNone;

using dist::Place;

// What decides a window's writing, over all processes: where its last line
// is (the process that writes what follows it), where its first line is
// (to check the stream's order), the highest phase of a call and of a
// decided step.
struct WindowSums {
  Place last;
  Place first{INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  int64_t max_phase = INT64_MIN, path_phase = INT64_MIN;
  int64_t decided_until = INT64_MIN;  // the latest end of a decided step
  void Add(const WindowSums& o) {
    last = std::max(last, o.last);
    first = std::min(first, o.first);
    max_phase = std::max(max_phase, o.max_phase);
    path_phase = std::max(path_phase, o.path_phase);
    decided_until = std::max(decided_until, o.decided_until);
  }
};
static_assert(std::is_trivially_copyable_v<WindowSums>);


void PackSegments(const std::vector<Segment>& segments, dist::Packer* out) {
  out->Put<uint64_t>(segments.size());
  for (const Segment& s : segments) out->Put(s);
}

class ParallelCpath : public dist::WindowStage {
 public:
  ParallelCpath(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files)
      : WindowStage(comm, input, files, config.read), config_(config) {}

 private:
  Status Start() override {
    if (config_.algo != Algo::kExact) return InputError("rp-cpath-mpi finds the exact path only (--algo exact)");
    RP_RETURN_IF_ERROR(windows_.Start());
    RP_RETURN_IF_ERROR(input_.RequireSplit("rp-cpath-mpi"));
    RP_ASSIGN_OR_RETURN(owners_, match::ShareOwners(comm_, input_.first_rank(), input_.last_rank()));
    const window::Dictionary& dict = windows_.dictionary();
    RP_ASSIGN_OR_RETURN(const std::string prelude, window::PreludeText(dict, std::string("rp-cpath ") + kVersion,
                                                                       nullptr, !config_.passthrough));
    RP_RETURN_IF_ERROR(config_.passthrough ? out_.Open(prelude, input_.first_rank() <= input_.last_rank())
                                           : out_.OpenStream(prelude));
    for (const trace::RankRecord& r : dict.rank_records) {
      if (r.has_complete() && !r.complete) ++problems_.incomplete_ranks;
    }
    code_ = std::make_unique<CodeProfile>(dict);
    path_ = std::make_unique<graph::DistributedPath>(comm_, owners_);
    return OkStatus();
  }

  Status AddWindow(window::Window& w) override {
    match::Ghosts ghosts;
    RP_ASSIGN_OR_RETURN(match::Matching matching,
                        match::MatchAcross(comm_, owners_, windows_.dictionary(), &w, &ghosts, &match_bytes_));
    ++windows_in_;
    ghosts_ += static_cast<int64_t>(ghosts.index.size());
    graph::Graph g(w, matching, true);
    std::vector<Segment> decided;
    const std::vector<graph::RankEnd> ends_before = path_->ends();
    RP_RETURN_IF_ERROR(path_->Add(g, ghosts, &decided));
    problems_.Count(g.problems(), matching);
    examples_.Add(w.index, matching);
    const int64_t run_start = path_->run_start();
    code_->SeeRanks(path_->window_ranks());
    RP_RETURN_IF_ERROR(code_->AddWindow(w, run_start, config_.zeroing));
    if (config_.zeroing && path_->window_had_calls()) {
      // What if a site or a sampled function took no time (online CP §3):
      // the same passes as rp-cpath's, replayed; functions known by name.
      RP_ASSIGN_OR_RETURN(std::vector<graph::ProcedureCuts> cuts, GlobalCuts());
      RP_RETURN_IF_ERROR(
          graph::ZeroAcross(comm_, g, ghosts, ends_before, run_start, cuts, &zeroings_, &zero_stats_));
    }
    const std::vector<graph::CallTimes> times = graph::SplitCalls(g, matching);
    const int64_t max_phase =
        AddCalls(g, times, run_start, &last_exit_, &run_, config_.phases ? &phases_ : nullptr);
    if (config_.passthrough) RP_RETURN_IF_ERROR(WriteLines(w));
    for (const window::Line& line : w.lines) {
      if (line.type != trace::RecordType::kPhase) continue;
      RP_RETURN_IF_ERROR(decoder_.DecodeCopy(w.text(line), &record_));
      phase_times_[record_.phase.id] = {record_.phase.t0, record_.phase.t1};
    }
    int64_t path_phase = INT64_MIN;
    for (const Segment& s : decided) {
      run_.AddSegment(s);
      code_->AddSegment(s);
      if (s.phase != kNone && config_.phases) {
        phases_[s.phase].AddSegment(s);
        path_phase = std::max<int64_t>(path_phase, s.phase);
      }
    }
    // Where the window's lines lie, and the phases it reached.
    WindowSums mine;
    {
      // This process's lines are in the stream's order: its first and last
      // event lines are its least and greatest.
      const window::Line* first = nullptr;
      const window::Line* last = nullptr;
      for (const window::Line& line : w.lines) {
        if (line.rank < 0) continue;
        if (first == nullptr) first = &line;
        last = &line;
      }
      if (first != nullptr) {
        RP_ASSIGN_OR_RETURN(mine.first, PlaceOf(w, *first));
        RP_ASSIGN_OR_RETURN(mine.last, PlaceOf(w, *last));
      }
    }
    mine.max_phase = max_phase == kNone ? INT64_MIN : max_phase;
    mine.path_phase = path_phase;
    for (const Segment& s : decided) mine.decided_until = std::max(mine.decided_until, s.t1);
    RP_ASSIGN_OR_RETURN(WindowSums all, dist::AllreduceValue(comm_, mine));
    // Every process forgets the computations the path has left behind,
    // whether its ranks carry the path or not.
    if (all.decided_until != INT64_MIN) code_->DecidedUntil(all.decided_until);
    if (all.last.process >= 0) {
      // rp-cpath writes a window's lines together: the split output reads
      // back in that order only if no line of it comes before a line of
      // the window before.
      if (config_.passthrough && last_place_.process >= 0 &&
          std::tie(all.first.phase, all.first.time, all.first.rank) <
              std::tie(last_place_.phase, last_place_.time, last_place_.rank)) {
        return InputError("window " + std::to_string(w.index) + " has a line (rank " + std::to_string(all.first.rank) +
                          ", time " + std::to_string(all.first.time) +
                          ") before the last line of the window before it: the stream is not in the order of its "
                          "global synchronizations (clocks not synchronized?); run rp-clocksync first");
      }
      last_place_ = all.last;
      holder_ = static_cast<int>(all.last.process);
    }
    if (all.max_phase != INT64_MIN) max_phase_ = std::max(max_phase_, all.max_phase);
    if (all.path_phase != INT64_MIN) path_phase_ = std::max(path_phase_, all.path_phase);
    if (w.ends_with_sync && max_phase_ != INT64_MIN) complete_below_ = max_phase_ + 1;
    // The window's decided steps and finished phases, to their writer.
    const int64_t finished = std::min(complete_below_, path_phase_);
    return Gather(decided, finished, nullptr);
  }

  Expected<Place> PlaceOf(const window::Window& w, const window::Line& line) {
    return placer_.Of(w.text(line), comm_.rank());
  }

  // The window's function cuts (CodeProfile::cuts), their functions
  // numbered alike on every process: a name first cut in a window gets the
  // next number, names of one window in name order.
  Expected<std::vector<graph::ProcedureCuts>> GlobalCuts() {
    const profile::ContextTree& tree = code_->tree();
    dist::Packer fresh;
    for (const graph::ProcedureCuts& p : code_->cuts()) {
      const std::string& name = tree.functions()[p.procedure];
      if (!function_ids_.count(name)) fresh.PutString(name);
    }
    RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm_.Allgather(fresh.bytes()));
    std::set<std::string> names;
    for (const std::string& bytes : all) {
      dist::Unpacker in(bytes);
      while (!in.done() && !in.bad()) names.insert(in.GetString());
    }
    for (const std::string& name : names) {
      if (function_ids_.emplace(name, static_cast<int32_t>(function_names_.size())).second) {
        function_names_.push_back(name);
      }
    }
    std::vector<graph::ProcedureCuts> cuts;
    for (const graph::ProcedureCuts& p : code_->cuts()) {
      cuts.push_back({function_ids_.at(tree.functions()[p.procedure]), p.cuts});
    }
    std::sort(cuts.begin(), cuts.end(),
              [](const graph::ProcedureCuts& a, const graph::ProcedureCuts& b) { return a.procedure < b.procedure; });
    return cuts;
  }

  // This process's lines of the window into its part.
  Status WriteLines(const window::Window& w) {
    if (!out_.part()) return OkStatus();
    for (const window::Line& line : w.lines) {
      RP_RETURN_IF_ERROR(out_.WriteLine(w.text(line), line.rank >= 0 ? line.time : INT64_MIN));
    }
    return OkStatus();
  }

  // The process writing what follows the lines so far: the holder of the
  // last line (process 0 before any, and for the one stream without
  // passthrough).
  int Writer() const { return config_.passthrough && holder_ >= 0 ? holder_ : 0; }

  // Sends the writer (holder_) the decided steps, the phases below
  // `finished` (and their times) and, at the end (`end`), the run's sums;
  // the writer writes them as rp-cpath does.
  struct End {};
  Status Gather(const std::vector<Segment>& decided, int64_t finished, const End* end) {
    const int to = Writer();
    dist::Packer out;
    PackSegments(decided, &out);
    // The finished phases' scopes, and the times of their phase records
    // (whichever process read each: it may hold no call of the phase).
    std::vector<std::pair<int64_t, Scope*>> done;
    for (auto& [id, scope] : phases_) {
      if (end == nullptr && id >= finished) break;
      done.emplace_back(id, &scope);
    }
    out.Put<uint64_t>(done.size());
    for (const auto& [id, scope] : done) {
      out.Put(id);
      scope->Pack(&out);
    }
    for (const auto& [id, scope] : done) phases_.erase(id);
    auto times_end = end == nullptr ? phase_times_.lower_bound(finished) : phase_times_.end();
    out.Put<uint64_t>(std::distance(phase_times_.begin(), times_end));
    for (auto it = phase_times_.begin(); it != times_end; ++it) {
      out.Put(it->first);
      out.Put(it->second);
    }
    phase_times_.erase(phase_times_.begin(), times_end);
    if (end != nullptr) {
      run_.Pack(&out);
      const NamedCode named = code_->Named();
      named.Pack(&out);
      for (int64_t v : {problems_.graph.backward_edges, problems_.graph.cycle_edges, problems_.graph.negative_compute,
                        problems_.graph.neighbour_collectives, problems_.unmatched_sends, problems_.unmatched_receives,
                        problems_.unresolved_receives}) {
        out.Put(v);
      }
      examples_.Pack(&out);
    }
    std::vector<std::string> bytes(comm_.size());
    bytes[to] = std::move(out.bytes());
    RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm_.Alltoallv(bytes));
    if (comm_.rank() != to) return OkStatus();
    return WriteGathered(in, end);
  }

  Status WriteGathered(const std::vector<std::string>& in, const End* end) {
    std::vector<Segment> segments;
    std::map<int64_t, Scope> phases;
    std::map<int64_t, std::pair<int64_t, int64_t>> times;
    Scope run;
    NamedCode named;
    Problems problems;
    problems.incomplete_ranks = problems_.incomplete_ranks;
    match::ExampleList examples(kExamples);
    for (int p = 0; p < comm_.size(); ++p) {
      dist::Unpacker from(in[p]);
      for (uint64_t n = from.Get<uint64_t>(); n > 0 && !from.bad(); --n) segments.push_back(from.Get<Segment>());
      for (uint64_t n = from.Get<uint64_t>(); n > 0 && !from.bad(); --n) {
        const int64_t id = from.Get<int64_t>();
        RP_ASSIGN_OR_RETURN(Scope scope, Scope::Unpack(&from));
        phases[id].Add(scope);
      }
      for (uint64_t n = from.Get<uint64_t>(); n > 0 && !from.bad(); --n) {
        const int64_t id = from.Get<int64_t>();
        times[id] = from.Get<std::pair<int64_t, int64_t>>();
      }
      if (end != nullptr) {
        RP_ASSIGN_OR_RETURN(Scope scope, Scope::Unpack(&from));
        run.Add(scope);
        RP_ASSIGN_OR_RETURN(NamedCode theirs, NamedCode::Unpack(&from));
        named.Add(theirs);
        for (int64_t* v : {&problems.graph.backward_edges, &problems.graph.cycle_edges,
                           &problems.graph.negative_compute, &problems.graph.neighbour_collectives,
                           &problems.unmatched_sends, &problems.unmatched_receives, &problems.unresolved_receives}) {
          *v += from.Get<int64_t>();
        }
        RP_RETURN_IF_ERROR(examples.AddPacked(&from));
      }
      if (from.bad() || !from.done()) return InputError("process " + std::to_string(p) + " sent damaged sums");
    }
    if (end != nullptr) problems.examples = examples.Texts();  // the run's first, as one process meets them
    // Along the path every step starts where the one before ended: by time
    // they are in the path's order.
    std::sort(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) { return a.t0 < b.t0; });
    std::string text;
    {
      trace::Writer writer(trace::StringOutput(&text));
      RecordWriter records(windows_.dictionary(), writer);
      for (const Segment& s : segments) RP_RETURN_IF_ERROR(records.WriteSegment(s));
      for (auto& [id, scope] : phases) {
        RecordWriter::Span span{scope.start, scope.end};
        auto t = times.find(id);
        if (t != times.end()) span = {t->second.first, t->second.second};
        RP_RETURN_IF_ERROR(records.WriteScope(scope, id, span, "exact", problems, config_.phase_ranks));
      }
      if (end != nullptr) {
        if (config_.warn) WarnAbout(problems, named, windows_.dictionary());
        RP_RETURN_IF_ERROR(
            records.WriteScope(run, kNone, {path_->run_start(), run.end}, "exact", problems, true, &named));
        if (config_.zeroing) {
          // Without samples a function's share is its call sites' computation,
          // which the site what-ifs already show.
          static const std::vector<std::string> kNoFunctions;
          RP_RETURN_IF_ERROR(
              records.WriteZeroings(run, zeroing_results_, named.sampled ? function_names_ : kNoFunctions));
        }
        RP_RETURN_IF_ERROR(records.WriteTop(run, config_.top, named));
      }
      RP_RETURN_IF_ERROR(writer.Close());
    }
    if (config_.passthrough && holder_ >= 0) {
      out_.Count(std::count(text.begin(), text.end(), '\n'));
      return out_.part()->WriteText(text);
    }
    return out_.index()->WriteText(text);
  }

  Status Finish() override {
    std::vector<Segment> rest;
    RP_RETURN_IF_ERROR(path_->Finish(&rest));  // from its end up: in the path's order by time
    std::sort(rest.begin(), rest.end(), [](const Segment& a, const Segment& b) { return a.t0 < b.t0; });
    for (const Segment& s : rest) {
      run_.AddSegment(s);
      code_->AddSegment(s);
      if (s.phase != kNone && config_.phases) phases_[s.phase].AddSegment(s);
    }
    code_->Finish();
    End end;
    // Told, as rp-cpath tells them, before its own warnings and by the
    // process that writes those (the writer of the run's records).
    const int writer = Writer();
    RP_RETURN_IF_ERROR(dist::WarnAboutInputAcross(comm_, windows_, comm_.rank() == writer));
    if (!path_->started()) {
      // Told once (mpirun exits with its status).
      return comm_.rank() == writer ? NothingError("the trace has no mpi records: no critical path") : OkStatus();
    }
    if (config_.zeroing) {
      RP_ASSIGN_OR_RETURN(zeroing_results_, graph::ZeroingResults(comm_, zeroings_));
    }
    RP_RETURN_IF_ERROR(Gather(rest, INT64_MAX, &end));
    // For tests/bench/parallel_bench.sh's model (-v).
    const graph::ReplayStats& r = path_->stats();
    spdlog::debug("process {} of {}: {} windows, {} match bytes sent, {} ghosts; paths: {} rounds, {} values, {} bytes "
                  "sent; what-ifs: {} rounds, {} bytes sent",
                  comm_.rank(), comm_.size(), windows_in_, match_bytes_, ghosts_, r.rounds, r.values_sent, r.bytes_sent,
                  zero_stats_.rounds, zero_stats_.bytes_sent);
    return out_.Close(input_.first_rank(), input_.last_rank());
  }

  const Config& config_;
  match::Owners owners_;
  std::unique_ptr<graph::DistributedPath> path_;
  std::unique_ptr<CodeProfile> code_;
  Problems problems_;
  static constexpr size_t kExamples = 3;  // as Problems keeps
  match::ExampleList examples_{kExamples};
  Scope run_;
  std::map<int64_t, Scope> phases_;
  std::map<int64_t, std::pair<int64_t, int64_t>> phase_times_;
  std::vector<int64_t> last_exit_;
  int64_t windows_in_ = 0, ghosts_ = 0, match_bytes_ = 0;
  graph::Zeroings zeroings_;
  graph::ReplayStats zero_stats_;
  std::vector<graph::Zeroings::Result> zeroing_results_;
  std::map<std::string, int32_t> function_ids_;  // functions cut, numbered alike everywhere
  std::vector<std::string> function_names_;
  int64_t max_phase_ = INT64_MIN, path_phase_ = INT64_MIN, complete_below_ = INT64_MIN;
  int holder_ = -1;  // the process holding the last line so far
  Place last_place_;
  dist::Placer placer_;
  trace::LineDecoder decoder_;
  trace::Record record_;
};

}  // namespace

Status RunParallel(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files) {
  return ParallelCpath(config, comm, input, files).Run();
}

}  // namespace rp::cpath
