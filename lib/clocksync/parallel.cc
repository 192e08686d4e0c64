#include "lib/clocksync/parallel.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "lib/base/version.h"
#include "lib/clock/distributed.h"
#include "lib/clocksync/synchronizer.h"
#include "lib/dist/judge.h"
#include "lib/dist/stage.h"
#include "lib/match/distributed.h"

namespace rp::clocksync {
namespace {

// Steps every process takes alike warn once, from process 0.
class QuietUnless {
 public:
  explicit QuietUnless(bool speak) : level_(spdlog::get_level()) {
    if (!speak) spdlog::set_level(spdlog::level::err);
  }
  ~QuietUnless() { spdlog::set_level(level_); }

 private:
  const spdlog::level::level_enum level_;
};

// A record's place in the output (its time on rank 0's clock, its rank),
// with the process writing it.
struct Place {
  int64_t time = INT64_MIN, rank = INT64_MIN, process = -1;
  auto operator<=>(const Place&) const = default;
};

// Over all processes, per window: where its records begin and end, and
// whether it holds records the split output cannot place.
struct WindowSums {
  Place first{INT64_MAX, INT64_MAX, INT64_MAX};
  Place last;
  int64_t foreign = 0;  // records of no rank, or tagged with a phase
  void Add(const WindowSums& o) {
    first = std::min(first, o.first);
    last = std::max(last, o.last);
    foreign += o.foreign;
  }
};

// The mapped times' span so far, over all processes.
struct Span {
  int64_t earliest = INT64_MAX, latest = INT64_MIN;
  void Add(const Span& o) { earliest = std::min(earliest, o.earliest), latest = std::max(latest, o.latest); }
};
static_assert(std::is_trivially_copyable_v<WindowSums> && std::is_trivially_copyable_v<Span>);

class ParallelClocksync : public dist::WindowStage {
 public:
  ParallelClocksync(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files)
      : WindowStage(comm, input, files, config.read), config_(config) {}

 private:
  Status Start() override {
    std::vector<std::vector<clock::SyncExit>> exits;
    if (config_.method == Method::kGaps) {
      window::ReadConfig quiet = config_.read;
      quiet.progress = nullptr;
      dist::CommJudge judge(comm_);
      window::WindowReader first_pass(input_, window::Boundaries::kClean, quiet);
      first_pass.SetJudge(&judge);
      RP_ASSIGN_OR_RETURN(exits, internal::CollectExits(first_pass));
      input_.Rewind();
    }
    RP_RETURN_IF_ERROR(windows_.Start());
    RP_RETURN_IF_ERROR(input_.RequireSplit("rp-clocksync-mpi"));
    RP_ASSIGN_OR_RETURN(owners_, match::ShareOwners(comm_, input_.first_rank(), input_.last_rank()));
    const window::Dictionary& dict = windows_.dictionary();
    int64_t ranks;
    {
      QuietUnless quiet(comm_.rank() == 0);
      ranks = CountRanks(dict);
    }
    clock::GapsFit gaps;
    if (config_.method == Method::kGaps) {
      exits.resize(ranks);
      RP_ASSIGN_OR_RETURN(gaps, FitGapsAcross(exits));
    }
    Expected<Clocks> clocks = InputError("");
    {
      QuietUnless quiet(comm_.rank() == 0);
      clocks = ChooseClocks(dict, ranks, config_.method, gaps, config_.gaps_tolerance);
    }
    if (!clocks.ok()) return clocks.status();
    RP_ASSIGN_OR_RETURN(const std::string prelude,
                        window::PreludeText(dict, std::string("rp-clocksync ") + kVersion,
                                            [](trace::HeaderRecord& h) { h.set_clock("global"); }));
    RP_RETURN_IF_ERROR(out_.Open(prelude, input_.first_rank() <= input_.last_rank()));
    sync_ = std::make_unique<internal::Synchronizer>(config_, dict, std::move(*clocks));
    // Counting the violations takes a collective: every process counts if
    // any logs them (each decides by its own log level).
    RP_ASSIGN_OR_RETURN(dist::Sum counting, dist::AllreduceValue(comm_, dist::Sum{sync_->count_violations() ? 1 : 0}));
    count_ = counting.value > 0;
    return OkStatus();
  }

  // --method gaps: rank 0's exits go to every process, each fits its
  // ranks against them (clock::FitGaps compares each rank with rank 0
  // alone), and the fits are gathered.
  Expected<clock::GapsFit> FitGapsAcross(std::vector<std::vector<clock::SyncExit>>& exits) {
    const int64_t first = input_.first_rank(), last = input_.last_rank();
    dist::Packer zero;
    if (!exits.empty() && first <= 0 && 0 <= last) {
      for (const clock::SyncExit& e : exits[0]) zero.Put(e);
    }
    RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm_.Allgather(zero.bytes()));
    if (!exits.empty()) {
      const int holder = owners_.Of(0);
      if (holder >= 0 && holder != comm_.rank()) {
        dist::Unpacker in(all[holder]);
        while (!in.done() && !in.bad()) exits[0].push_back(in.Get<clock::SyncExit>());
      }
    }
    clock::GapsFit fit = clock::FitGaps(exits, config_.gaps_tolerance);
    dist::Packer mine;
    for (int64_t r = std::max<int64_t>(first, 1); r <= last && r < static_cast<int64_t>(exits.size()); ++r) {
      mine.Put(r);
      mine.Put<int64_t>(fit.fitted[r]);
      mine.Put(fit.clocks[r]);
      mine.Put(fit.instances[r]);
      mine.Put(fit.residual[r]);
    }
    RP_ASSIGN_OR_RETURN(all, comm_.Allgather(mine.bytes()));
    for (const std::string& bytes : all) {
      dist::Unpacker in(bytes);
      while (!in.done() && !in.bad()) {
        const int64_t r = in.Get<int64_t>();
        const bool fitted = in.Get<int64_t>() != 0;
        const clock::LinearClock line = in.Get<clock::LinearClock>();
        const int64_t instances = in.Get<int64_t>(), residual = in.Get<int64_t>();
        if (in.bad() || r < 1 || r >= static_cast<int64_t>(exits.size())) return InputError("a damaged gaps fit");
        fit.fitted[r] = fitted, fit.clocks[r] = line, fit.instances[r] = instances, fit.residual[r] = residual;
      }
    }
    return fit;
  }

  Status AddWindow(window::Window& w) override {
    // Matched on the local times (the stream's order places the ghosts),
    // then every event mapped: the matching does not depend on times.
    match::Ghosts ghosts;
    RP_ASSIGN_OR_RETURN(match::Matching matching,
                        match::MatchAcross(comm_, owners_, windows_.dictionary(), &w, &ghosts, &match_bytes_));
    sync_->MapTimes(w);
    RP_ASSIGN_OR_RETURN(Span span, dist::AllreduceValue(comm_, Span{sync_->earliest(), sync_->latest()}));
    sync_->SetSpan(span.earliest, span.latest);
    RP_RETURN_IF_ERROR(sync_->CheckSpan(w));
    internal::Tally& tally = sync_->tally();
    tally.Add(matching);
    examples_.Add(w.index, matching);
    clock::Constraints& constraints = sync_->constraints();
    const int64_t min_latency = sync_->repair_options().min_latency;
    constraints.Build(w, matching);
    if (count_) tally.mapped.Add(clock::CountViolations(w, constraints, min_latency));
    if (config_.repair) {
      RP_ASSIGN_OR_RETURN(clock::RepairResult result,
                          clock::RepairAcross(comm_, &w, constraints, ghosts, sync_->repair_options(),
                                              &sync_->carried_shift(), &repair_stats_));
      tally.Add(result);
      // The violations left are counted at the sources' final starts.
      if (count_) RP_RETURN_IF_ERROR(clock::ShareGhostTimes(comm_, &w, ghosts, &repair_stats_));
    }
    if (count_) tally.final.Add(clock::CountViolations(w, constraints, min_latency));

    WindowSums mine;
    for (const window::Line& line : w.lines) {
      if (line.rank < 0 || (line.event >= 0 && w.events[line.event].phase != window::kNone)) ++mine.foreign;
    }
    if (out_.part() != nullptr) {
      RP_RETURN_IF_ERROR(sync_->WriteSorted(w, *out_.part()));
      const internal::Synchronizer::Written& written = sync_->written();
      if (written.first_time != INT64_MIN) {
        mine.first = {written.first_time, written.first_rank, comm_.rank()};
        mine.last = {written.last_time, written.last_rank, comm_.rank()};
      }
      out_.Count(written.lines, mine.first.time, mine.last.time);
    }
    RP_ASSIGN_OR_RETURN(WindowSums all, dist::AllreduceValue(comm_, mine));
    if (all.foreign > 0) {
      return InputError("window " + std::to_string(w.index) + " holds " + std::to_string(all.foreign) +
                        " record(s) of no rank or tagged with a phase among its events: rp-clocksync-mpi reads "
                        "traces as rp-record writes them (run it before rp-phases); rp-cat INDEX | rp-clocksync "
                        "reads this one");
    }
    if (all.last.process >= 0) {
      // rp-clocksync writes a window's records together: the split output
      // reads back in that order only if none comes before one of the
      // window before.
      if (last_.process >= 0 && std::tie(all.first.time, all.first.rank) < std::tie(last_.time, last_.rank)) {
        return InputError("window " + std::to_string(w.index) + ": rank " + std::to_string(all.first.rank) +
                          "'s record at " + std::to_string(all.first.time) + " ns on rank 0's clock comes before " +
                          "rank " + std::to_string(last_.rank) + "'s at " + std::to_string(last_.time) +
                          " ns, the last of the window before: a split output cannot keep rp-clocksync's order "
                          "here; rp-cat INDEX | rp-clocksync reads this trace");
      }
      last_ = all.last;
    }
    return OkStatus();
  }

  // The run's tally from every process, the clock records after the last
  // record of all (by its holder), the outputs closed, the warnings.
  Status Finish() override {
    dist::Packer mine;
    sync_->tally().Pack(&mine);
    examples_.Pack(&mine);
    RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm_.Allgather(mine.bytes()));
    internal::Tally run;
    run.ranks.resize(sync_->tally().ranks.size());
    match::ExampleList examples(kExamples);
    for (int p = 0; p < comm_.size(); ++p) {
      dist::Unpacker in(all[p]);
      RP_RETURN_IF_ERROR(run.AddPacked(&in));
      RP_RETURN_IF_ERROR(examples.AddPacked(&in));
    }
    // The run's first examples, in the order one process meets them.
    run.examples = examples.Texts();
    sync_->tally() = std::move(run);
    const int writer = last_.process >= 0 ? static_cast<int>(last_.process) : 0;
    if (comm_.rank() == writer) {
      // With no record at all, after the prelude in the index.
      const bool in_part = last_.process >= 0;
      trace::Writer& out = in_part ? *out_.part() : *out_.index();
      RP_RETURN_IF_ERROR(sync_->WriteSummaries(out));
      if (in_part) out_.Count(static_cast<int64_t>(sync_->tally().ranks.size()));
    }
    RP_RETURN_IF_ERROR(out_.Close(input_.first_rank(), input_.last_rank()));
    RP_RETURN_IF_ERROR(dist::WarnAboutInputAcross(comm_, windows_, comm_.rank() == writer));
    // For tests/bench/parallel_bench.sh's model (-v).
    spdlog::debug("process {} of {}: {} match bytes sent; repair: {} rounds, {} bytes sent", comm_.rank(),
                  comm_.size(), match_bytes_, repair_stats_.rounds, repair_stats_.bytes_sent);
    QuietUnless quiet(comm_.rank() == writer);
    const Status status = sync_->Warn();
    // Nothing to analyse (exit 1) is told once, by the writer; mpirun
    // exits with its status.
    if (status.code() == StatusCode::kNothing && comm_.rank() != writer) return OkStatus();
    return status;
  }

  const Config& config_;
  match::Owners owners_;
  std::unique_ptr<internal::Synchronizer> sync_;
  Place last_;  // the last record of the windows so far
  bool count_ = false;  // violations counted (alike on every process)
  static constexpr size_t kExamples = 5;  // as Tally keeps
  match::ExampleList examples_{kExamples};
  int64_t match_bytes_ = 0;
  clock::RepairStats repair_stats_;
};

}  // namespace

Status RunParallel(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files) {
  return ParallelClocksync(config, comm, input, files).Run();
}

}  // namespace rp::clocksync
