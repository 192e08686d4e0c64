#include "lib/diagnose/parallel.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/version.h"
#include "lib/diagnose/diagnosis.h"
#include "lib/diagnose/distributed.h"
#include "lib/diagnose/path_records.h"
#include "lib/dist/judge.h"
#include "lib/dist/stage.h"
#include "lib/graph/window_graphs.h"
#include "lib/match/distributed.h"

namespace rp::diagnose {
namespace {

// Whether the stream carries rp-cpath's records (its header names it).
bool HasPathRecords(const window::Dictionary& dict) {
  return std::any_of(dict.header.producer.begin(), dict.header.producer.end(),
                     [](const std::string& p) { return p.starts_with("rp-cpath"); });
}

class ParallelDiagnose : public dist::WindowStage {
 public:
  ParallelDiagnose(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files)
      : WindowStage(comm, input, files, config.read), config_(config) {}

 private:
  Status Start() override {
    RP_RETURN_IF_ERROR(windows_.Start());
    RP_RETURN_IF_ERROR(input_.RequireSplit("rp-diagnose-mpi"));
    const window::Dictionary& dict = windows_.dictionary();
    if (!HasPathRecords(dict)) {
      // rp-diagnose computes the path when it is missing; on processes the
      // path is rp-cpath-mpi's to find.
      return InputError(
          "rp-diagnose-mpi reads the critical path from rp-cpath's records, which this trace lacks: run "
          "rp-cpath-mpi on it first (rp-clocksync-mpi, rp-phases-mpi, rp-cpath-mpi, then rp-diagnose-mpi)");
    }
    RP_ASSIGN_OR_RETURN(owners_, match::ShareOwners(comm_, input_.first_rank(), input_.last_rank()));
    RP_ASSIGN_OR_RETURN(const std::string prelude, window::PreludeText(dict, std::string("rp-diagnose ") + kVersion,
                                                                       nullptr, !config_.passthrough));
    RP_RETURN_IF_ERROR(config_.passthrough ? out_.Open(prelude, input_.first_rank() <= input_.last_rank())
                                           : out_.OpenStream(prelude));
    across_ = std::make_unique<FiguresAcrossProcesses>(comm_, owners_);
    figures_ = std::make_unique<Figures>(dict, config_.cause_share, across_.get());
    RP_RETURN_IF_ERROR(figures_->NoteRecords(dict));
    path_ = std::make_unique<PathSource>(
        dict, [this](const trace::CpSegmentRecord& s, const StreamPlace& place) { figures_->PathStep(s, place); });
    if (comm_.rank() == 0) diagnosis_ = std::make_unique<Diagnosis>(config_, dict);
    return OkStatus();
  }

  Status AddWindow(window::Window& w) override {
    auto wg = std::make_unique<graph::WindowGraph>();
    match::Ghosts ghosts;
    RP_ASSIGN_OR_RETURN(wg->matching, match::MatchAcross(comm_, owners_, windows_.dictionary(), &w, &ghosts));
    std::swap(wg->window, w);
    wg->graph = graph::Graph(wg->window, wg->matching, true);  // problems counted for this process's calls
    wg->times = graph::SplitCalls(wg->graph, wg->matching);
    backward_ += wg->graph.problems().backward_edges;
    RP_RETURN_IF_ERROR(PassLines(wg->window, config_.passthrough));
    across_->SetWindow(&wg->graph, &ghosts);
    RP_RETURN_IF_ERROR(figures_->AddWindow(*wg, &ended_));
    RP_RETURN_IF_ERROR(SendEnded(figures_->ended_order(), false));
    RP_RETURN_IF_ERROR(path_->AddWindow(&wg));  // the input's cp records, after the window's calls (the timeline)
    std::swap(wg->window, w);
    return OkStatus();
  }

  // The phases this process ended, to process 0, which merges them by
  // phase and adds them to the diagnosis in `order` (the phases a window
  // ended, alike on every process: the one-process order of the sums), or
  // at the end in phase order. Every process calls it.
  Status SendEnded(const std::vector<int32_t>& order, bool at_end) {
    if (order.empty() && !at_end) return OkStatus();  // nothing ended anywhere
    dist::Packer mine;
    for (const PhaseFigures& f : ended_) PackFigures(f, &mine);
    ended_.clear();
    std::vector<std::string> bytes(comm_.size());
    bytes[0] = std::move(mine.bytes());
    RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm_.Alltoallv(bytes));
    if (comm_.rank() != 0) return OkStatus();
    std::map<int32_t, PhaseFigures> merged;
    for (int p = 0; p < comm_.size(); ++p) {
      dist::Unpacker from(in[p]);
      while (!from.done() && !from.bad()) {
        RP_RETURN_IF_ERROR(MergePacked(&from, &merged[PackedPhase(from)]));
      }
      if (from.bad()) return InputError("process " + std::to_string(p) + " sent damaged phase figures");
    }
    for (int32_t phase : order) {
      auto it = merged.find(phase);
      if (it == merged.end()) continue;  // no calls but MPI_Init's anywhere: nothing measured
      diagnosis_->Add(it->second);
      merged.erase(it);
    }
    for (const auto& [phase, f] : merged) diagnosis_->Add(f);  // the phases open at the end, in phase order
    return OkStatus();
  }

  Status Finish() override {
    // Told, as rp-diagnose tells them, by the process that diagnoses.
    RP_RETURN_IF_ERROR(dist::WarnAboutInputAcross(comm_, windows_, comm_.rank() == 0));
    if (!figures_->started()) {
      // Told once (mpirun exits with its status).
      return comm_.rank() == 0 ? NothingError("the trace has no mpi records: nothing to diagnose") : OkStatus();
    }
    figures_->Finish(&ended_);
    RP_RETURN_IF_ERROR(SendEnded({}, true));
    RP_RETURN_IF_ERROR(path_->Finish());
    // The run-wide tables, the path's records and the sums, to process 0.
    dist::Packer mine;
    if (comm_.rank() != 0) figures_->PackTables(&mine);
    RP_ASSIGN_OR_RETURN(const std::string path_text, path_->records().Text());
    mine.PutString(path_text);
    mine.Put(backward_);
    mine.Put<uint8_t>(figures_->attribution().any_samples());
    std::vector<std::string> bytes(comm_.size());
    bytes[0] = std::move(mine.bytes());
    RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm_.Alltoallv(bytes));
    // The diagnosis follows the last line of all, written by its holder.
    RP_ASSIGN_OR_RETURN(const int writer, Writer(config_.passthrough));
    std::string text;
    if (comm_.rank() == 0) RP_RETURN_IF_ERROR(Diagnose(in, &text));
    RP_RETURN_IF_ERROR(SendToWriter(writer, std::move(text), config_.passthrough));
    const graph::ReplayStats& sets = across_->sets_stats();
    const graph::ReplayStats& balance = across_->balance_stats();
    spdlog::debug("process {} of {}: path sets: {} rounds, {} bytes sent; what-ifs: {} rounds, {} bytes sent",
                  comm_.rank(), comm_.size(), sets.rounds, sets.bytes_sent, balance.rounds, balance.bytes_sent);
    return out_.Close(input_.first_rank(), input_.last_rank());
  }

  // Process 0: the others' tables merged into its own, the path's records
  // kept in process order, the run's warnings, then the records.
  Status Diagnose(const std::vector<std::string>& in, std::string* text) {
    PathRecords path;
    int64_t backward = 0;
    bool samples = false;
    for (int p = 0; p < comm_.size(); ++p) {
      dist::Unpacker from(in[p]);
      if (p != 0) RP_RETURN_IF_ERROR(figures_->MergeTables(&from));
      RP_RETURN_IF_ERROR(path.KeepText(from.GetString()));
      backward += from.Get<int64_t>();
      samples |= from.Get<uint8_t>() != 0;
      if (from.bad() || !from.done()) return InputError("process " + std::to_string(p) + " sent damaged run tables");
    }
    WarnAboutRun(figures_->phased(), samples, backward);
    trace::Writer writer(trace::StringOutput(text));
    RP_RETURN_IF_ERROR(diagnosis_->Write(*figures_, path, writer));
    return writer.Close();
  }

  const Config& config_;
  match::Owners owners_;
  std::unique_ptr<FiguresAcrossProcesses> across_;
  std::unique_ptr<Figures> figures_;
  std::unique_ptr<PathSource> path_;
  std::unique_ptr<Diagnosis> diagnosis_;  // process 0's
  std::vector<PhaseFigures> ended_;
  int64_t backward_ = 0;
};

}  // namespace

Status RunParallel(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files) {
  return ParallelDiagnose(config, comm, input, files).Run();
}

}  // namespace rp::diagnose
