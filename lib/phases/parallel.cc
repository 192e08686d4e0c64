#include "lib/phases/parallel.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <type_traits>
#include <map>
#include <vector>

#include "lib/base/version.h"
#include "lib/dist/judge.h"
#include "lib/phases/phase_table.h"
#include "lib/trace/split.h"
#include "lib/window/window.h"

namespace rp::phases {
namespace {

using internal::Phase;

// A phase as the processes' parts add up to it: one slot of the
// exchange's all-reduce (72 bytes a phase, whatever the processes).
struct Combined {
  int64_t first_t0 = INT64_MAX, last_t1 = INT64_MIN, close = INT64_MIN, events = 0;
  int64_t last_time = INT64_MIN, last_rank = INT64_MIN;  // its last line (the phase's own order key)
  int64_t owner = -1;                                    // the process holding it
  uint64_t signature = 0;                                // the ranks' sum (Signature::Sum)
  int64_t parts = 0;                                     // processes with lines of it (0: no phase)

  void Add(const Combined& o) {
    first_t0 = std::min(first_t0, o.first_t0);
    last_t1 = std::max(last_t1, o.last_t1);
    close = std::max(close, o.close);
    events += o.events;
    if (std::make_pair(last_time, last_rank) < std::make_pair(o.last_time, o.last_rank)) {
      last_time = o.last_time, last_rank = o.last_rank, owner = o.owner;
    }
    signature += o.signature;
    parts += o.parts;
  }
};
static_assert(sizeof(Combined) == 72 && std::is_trivially_copyable_v<Combined>);

// Where the processes stand after a round (one all-reduce slot, 40
// bytes): the phases all have left behind, whether all are done, the
// range of phases any holds parts of, and whether one failed.
struct Progress {
  int64_t reached = INT64_MAX, done = 1, lowest = INT64_MAX, highest = INT64_MIN, failed = 0;
  void Add(const Progress& o) {
    reached = std::min(reached, o.reached);
    done = std::min(done, o.done);
    lowest = std::min(lowest, o.lowest);
    highest = std::max(highest, o.highest);
    failed = std::max(failed, o.failed);
  }
};
static_assert(sizeof(Progress) == 40 && std::is_trivially_copyable_v<Progress>);

// A window read and not yet written: its phases' lines wait for their records.
struct Pending {
  window::Window window;
  std::map<int64_t, Phase> phases;
};

// One process's output part, counted for its part record.
struct PartOut {
  std::unique_ptr<trace::Writer> writer;
  int64_t records = 0, t0 = INT64_MAX, t1 = INT64_MIN;

  Status WriteLines(const window::Window& w, const Phase& p) {
    RP_RETURN_IF_ERROR(internal::WriteTagged(w, p.lines, p.id, writer.get()));
    for (size_t i : p.lines) {
      const window::Line& line = w.lines[i];
      if (line.type == trace::RecordType::kPhase) continue;  // dropped
      ++records;
      if (line.rank >= 0) t0 = std::min(t0, line.time), t1 = std::max(t1, line.time);
    }
    return OkStatus();
  }
};

class ParallelPhases {
 public:
  ParallelPhases(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& output)
      : comm_(comm), input_(input), output_(output),
        windows_(input, window::Boundaries::kEverySync, config.read) {}

  // Rounds of reading, then two all-reduces: where the processes stand
  // (and whether one failed: then every process gathers its error and
  // stops), then the phases all have finished. A process that failed
  // still makes the first, so none waits for it.
  Status Run() {
    input_.SelectParts(comm_.rank(), comm_.size());
    Status local = Start();
    for (;;) {
      Progress progress;
      if (local.ok()) local = ReadWindow(&progress);
      progress.failed = local.ok() ? 0 : 1;
      std::string slot(reinterpret_cast<const char*>(&progress), sizeof progress);
      RP_RETURN_IF_ERROR(comm_.Allreduce(&slot, sizeof progress, &dist::FoldSlots<Progress>));
      ++exchanges_;
      bytes_sent_ += sizeof progress, bytes_received_ += sizeof progress;
      std::memcpy(&progress, slot.data(), sizeof progress);
      if (progress.failed) return dist::GatherError(comm_, local);
      reached_all_ = progress.reached, all_done_ = progress.done != 0;
      lowest_ = progress.lowest, highest_ = progress.highest;
      local = ReduceFinished();
      if (local.ok()) local = NamePhases();
      // Done: every phase is named (reached_all_ is past them all), and the
      // others go on to Finish's exchange, which a failed process meets
      // with its error.
      if (all_done_) return local.ok() ? Finish() : dist::Fail(comm_, local);
    }
  }

 private:
  Status Start() {
    RP_RETURN_IF_ERROR(windows_.Start());
    RP_RETURN_IF_ERROR(input_.RequireSplit("rp-phases-mpi"));
    // Every part starts with the output's header line; the index gets the
    // whole prelude.
    RP_ASSIGN_OR_RETURN(const std::string prelude,
                        window::PreludeText(windows_.dictionary(), std::string("rp-phases ") + kVersion, nullptr,
                                            false, trace::RecordType::kPhase));
    if (input_.first_rank() <= input_.last_rank()) {  // a process without parts writes none
      const std::string path = trace::PartPath(output_.path, comm_.rank(), comm_.size());
      RP_ASSIGN_OR_RETURN(part_.writer, output_.open(path));
      RP_RETURN_IF_ERROR(part_.writer->WriteRaw(std::string_view(prelude).substr(0, prelude.find('\n'))));
    }
    if (comm_.rank() == 0) {
      RP_ASSIGN_OR_RETURN(index_, output_.open(output_.path));
      RP_RETURN_IF_ERROR(index_->WriteText(prelude));
    }
    return OkStatus();
  }

  // Reads this process's next windows, about kRoundLines lines (exchanges
  // cost a synchronization: fewer of them keep processes from waiting on
  // each other's every window); adds up its parts of the phases read and
  // says how far its ranks have got.
  static constexpr size_t kRoundLines = size_t{1} << 12;
  Status ReadWindow(Progress* mine) {
    size_t lines = 0;
    while (!done_ && lines < kRoundLines) {
      Pending pending;
      RP_ASSIGN_OR_RETURN(bool more, windows_.Next(&pending.window));
      if (!more) {
        done_ = true;
        reached_ = INT64_MAX;
        break;
      }
      pending.phases = collector_.Collect(pending.window);
      RP_RETURN_IF_ERROR(TakeTrailing(&pending));
      // A phase already named: records of a rank that came after the
      // window of their phase ended (given up for --hold, or first seen
      // late; warned of). They keep their phase id and get no record, as
      // rp-phases writes them, here where they were read.
      for (auto it = pending.phases.begin(); it != pending.phases.end() && it->first <= last_named_;) {
        RP_RETURN_IF_ERROR(part_.WriteLines(pending.window, it->second));
        it = pending.phases.erase(it);
      }
      // kEverySync: the window ends where every rank of this process has
      // left its phases behind.
      if (pending.window.ends_with_sync && !pending.phases.empty()) {
        reached_ = std::max(reached_, pending.phases.rbegin()->first + 1);
      } else if (!pending.window.ends_with_sync) {
        reached_ = INT64_MAX;
      }
      lines += pending.window.lines.size();
      lines_read_ += static_cast<int64_t>(pending.window.lines.size());
      Accumulate(pending);
      if (!pending.phases.empty()) pending_.push_back(std::move(pending));
    }
    mine->reached = reached_;
    mine->done = done_ ? 1 : 0;
    mine->lowest = local_.empty() ? INT64_MAX : local_.begin()->first;
    mine->highest = local_.empty() ? INT64_MIN : local_.rbegin()->first;
    return OkStatus();
  }

  // Records other than events (rp-clocksync's summaries) may follow every
  // event: they are kept apart and written after the last line of all
  // (Finish). One between events cannot be placed as rp-phases places it.
  Status TakeTrailing(Pending* pending) {
    const window::Window& w = pending->window;
    bool any = false;
    for (const window::Line& line : w.lines) {  // in input order
      if (line.rank >= 0) {  // the synchronizations its rank has finished so far
        const size_t r = static_cast<size_t>(line.rank);
        if (r >= syncs_.size()) syncs_.resize(r + 1, -1);
        syncs_[r] = line.level + (line.global_sync ? 1 : 0);
      }
      if (line.rank < 0 && line.type != trace::RecordType::kPhase) {
        trailing_.append(w.text(line)).push_back('\n');
        ++trailing_records_;
        trailing_level_ = std::max(trailing_level_, line.level);
        any = true;
      } else if (line.rank >= 0 && trailing_records_ > 0) {
        return InputError("rp-phases-mpi reads traces whose records other than mpi and sample ones come before "
                          "or after every event (a recording, rp-clocksync's output); this one lies between events: " +
                          trailing_.substr(0, std::min<size_t>(trailing_.find('\n'), 80)));
      }
    }
    if (!any) return OkStatus();
    for (auto& [id, p] : pending->phases) {
      std::erase_if(p.lines, [&](size_t i) { return w.lines[i].rank < 0 && w.lines[i].type != trace::RecordType::kPhase; });
    }
    return OkStatus();
  }

  // This process's part of each phase its windows held, added up until
  // every process has finished the phase.
  void Accumulate(const Pending& pending) {
    for (const auto& [id, p] : pending.phases) {
      Combined part;
      part.first_t0 = p.first_t0, part.last_t1 = p.last_t1, part.close = p.close, part.events = p.events;
      for (size_t i : p.lines) {
        const window::Line& line = pending.window.lines[i];
        if (line.rank >= 0 && std::make_pair(part.last_time, part.last_rank) < std::make_pair(line.time, int64_t{line.rank})) {
          part.last_time = line.time, part.last_rank = line.rank;
        }
      }
      part.owner = part.last_time == INT64_MIN ? -1 : comm_.rank();
      part.signature = p.signature.Sum();
      Combined& mine = local_[id];
      mine.Add(part);
      mine.parts = 1;  // one process, over however many windows
    }
  }

  // The phases every process has finished, added up over the processes by
  // an all-reduce of fixed slots (a phase no process has lines of stays
  // empty), in rounds of at most kSlots.
  static constexpr int64_t kSlots = 4096;
  Status ReduceFinished() {
    const int64_t end = highest_ == INT64_MIN ? lowest_ : std::min(reached_all_, highest_ + 1);
    for (int64_t from = lowest_; from < end;) {
      const int64_t to = from + std::min(kSlots, end - from);
      std::string slots(static_cast<size_t>(to - from) * sizeof(Combined), '\0');
      for (int64_t id = from; id < to; ++id) {
        auto it = local_.find(id);
        const Combined c = it != local_.end() ? it->second : Combined{};
        std::memcpy(slots.data() + (id - from) * sizeof(Combined), &c, sizeof c);
      }
      RP_RETURN_IF_ERROR(comm_.Allreduce(&slots, sizeof(Combined), &dist::FoldSlots<Combined>));
      bytes_received_ += static_cast<int64_t>(slots.size());
      for (int64_t id = from; id < to; ++id) {
        Combined c;
        std::memcpy(&c, slots.data() + (id - from) * sizeof(Combined), sizeof c);
        if (c.parts > 0) combined_[id] = c;
        local_.erase(id);
      }
      from = to;
    }
    return OkStatus();
  }

  // Names, in order, the phases every process has finished, and writes
  // this process's part of them.
  Status NamePhases() {
    while (!combined_.empty() && combined_.begin()->first < reached_all_) {
      auto node = combined_.extract(combined_.begin());
      const int64_t id = node.key();
      Combined& c = node.mapped();
      const trace::PhaseRecord record =
          namer_.Next(id, c.first_t0, c.last_t1, c.close, c.events, Signature::Hex(c.signature),
                      id == 0 && c.close == INT64_MIN);
      if (record_owner_ == comm_.rank()) {
        RP_RETURN_IF_ERROR(part_.writer->Write(record));
        ++part_.records;
      } else if (record_owner_ < 0 && comm_.rank() == 0) {
        RP_RETURN_IF_ERROR(index_->Write(record));  // before every event
      }
      if (c.owner >= 0) record_owner_ = static_cast<int>(c.owner);  // (a phase of dropped phase records only holds no line)
      last_named_ = id;
      ++named_;
      RP_RETURN_IF_ERROR(WritePhase(id));
    }
    return OkStatus();
  }

  void Count(const std::string& mine, const std::vector<std::string>& all) {
    ++exchanges_;
    bytes_sent_ += static_cast<int64_t>(mine.size());
    for (const std::string& bytes : all) bytes_received_ += static_cast<int64_t>(bytes.size());
  }

  Status WritePhase(int64_t id) {
    for (Pending& pending : pending_) {  // a phase's lines may lie in more than one window
      auto phase = pending.phases.find(id);
      if (phase == pending.phases.end()) continue;
      RP_RETURN_IF_ERROR(part_.WriteLines(pending.window, phase->second));
      pending.phases.erase(phase);
    }
    while (!pending_.empty() && pending_.front().phases.empty()) pending_.pop_front();
    return OkStatus();
  }

  // The parts closed, process 0 names them in the index and closes it last.
  // A process that fails here still makes the exchange the others wait in.
  Status Finish() {
    Status local = pending_.empty() ? OkStatus() : InputError("lines of a phase no process finished were left");
    if (!local.ok()) return dist::Fail(comm_, local);
    // The records after every event go after the last line of all, in the
    // part of its holder (the index's when there is none).
    dist::Packer after;
    after.PutString(trailing_);
    after.Put<int64_t>(trailing_records_);
    after.Put<int64_t>(trailing_level_);
    int64_t my_fewest = INT64_MAX, my_most = INT64_MIN;  // of this process's ranks' synchronizations
    for (int64_t n : syncs_) {
      if (n >= 0) my_fewest = std::min(my_fewest, n), my_most = std::max(my_most, n);
    }
    after.Put<int64_t>(my_fewest);
    after.Put<int64_t>(my_most);
    RP_ASSIGN_OR_RETURN(std::vector<std::string> trailing, dist::Exchange(comm_, after.bytes()));
    // rp-phases writes them at the end of the phase its windows had reached
    // when it read them: the ranks' fewest synchronizations. That is the
    // end of all when every rank made as many and their phase is the last;
    // otherwise they are refused. Every process decides alike, so none
    // waits for another here.
    int64_t fewest = INT64_MAX, most = INT64_MIN, records = 0, level = INT64_MIN;
    for (const std::string& bytes : trailing) {
      dist::Unpacker in(bytes);
      in.GetString();
      records += in.Get<int64_t>();
      level = std::max(level, in.Get<int64_t>());
      fewest = std::min(fewest, in.Get<int64_t>());
      most = std::max(most, in.Get<int64_t>());
    }
    if (records > 0 && (fewest != most || level != last_named_)) {
      return InputError("the records after every event would go into phase " + std::to_string(fewest) +
                        " of rp-phases' output, not after its last phase (" + std::to_string(last_named_) +
                        ", ranks ending after " + std::to_string(fewest) + " to " + std::to_string(most) +
                        " global synchronizations): rp-phases-mpi cannot place them as rp-phases does");
    }
    for (const std::string& bytes : trailing) {
      dist::Unpacker in(bytes);
      const std::string text = in.GetString();
      const int64_t records = in.Get<int64_t>();
      if (record_owner_ == comm_.rank() && local.ok()) {
        local = part_.writer->WriteText(text);
        part_.records += records;
      } else if (record_owner_ < 0 && comm_.rank() == 0 && local.ok()) {
        local = index_->WriteText(text);
      }
    }
    if (local.ok() && part_.writer) local = part_.writer->Close();
    if (!local.ok()) return dist::Fail(comm_, local);
    dist::Packer out;
    out.Put<int64_t>(input_.first_rank());
    out.Put<int64_t>(input_.last_rank());
    out.Put<int64_t>(part_.records);
    out.Put<int64_t>(part_.t0);
    out.Put<int64_t>(part_.t1);
    out.Put<int64_t>(collector_.events());
    RP_ASSIGN_OR_RETURN(std::vector<std::string> all, dist::Exchange(comm_, out.bytes()));
    Count(out.bytes(), all);
    RP_RETURN_IF_ERROR(dist::WarnAboutInputAcross(comm_, windows_, comm_.rank() == 0, /*judged=*/false));
    // For tests/bench/parallel_bench.sh's model (-v).
    spdlog::debug("process {} of {}: {} lines, {} phases named, {} exchanges, {} bytes sent, {} received",
                  comm_.rank(), comm_.size(), lines_read_, named_, exchanges_, bytes_sent_, bytes_received_);
    int64_t events = 0;
    for (int process = 0; process < comm_.size(); ++process) {
      dist::Unpacker in(all[process]);
      trace::RankGroup ranks;
      ranks.first = in.Get<int64_t>();
      ranks.last = in.Get<int64_t>();
      const int64_t records = in.Get<int64_t>(), t0 = in.Get<int64_t>(), t1 = in.Get<int64_t>();
      events += in.Get<int64_t>();
      if (comm_.rank() != 0 || ranks.last < ranks.first) continue;  // a process without parts
      const std::string path = trace::PartPath(output_.path, process, comm_.size());
      RP_RETURN_IF_ERROR(index_->Write(trace::PartRecordOf(path, ranks, records, t0, t1)));
    }
    if (comm_.rank() == 0) RP_RETURN_IF_ERROR(index_->Close());
    // Samples alone make no phase worth the name (exit 1, as rp-phases).
    if (events == 0 && comm_.rank() == 0) return NothingError("the trace has no mpi records: no phases");  // told once
    return OkStatus();
  }

  dist::Comm& comm_;
  trace::InputSet& input_;
  const dist::OutputFiles& output_;
  window::WindowReader windows_;
  internal::PhaseCollector collector_;
  internal::PhaseNamer namer_;
  PartOut part_;
  std::unique_ptr<trace::Writer> index_;  // process 0's
  std::deque<Pending> pending_;
  std::map<int64_t, Combined> local_;     // this process's parts of phases not yet reduced
  std::map<int64_t, Combined> combined_;  // phases reduced, not yet named
  int64_t lowest_ = INT64_MAX, highest_ = INT64_MIN;  // the phases any process holds parts of
  int64_t reached_ = 0;                   // this process's ranks have left phases < reached_ behind
  int64_t reached_all_ = 0;               // every process's have
  bool done_ = false, all_done_ = false;
  int record_owner_ = -1;  // who writes the next phase record: the holder of the last line before it
  int64_t last_named_ = INT64_MIN;
  std::string trailing_;  // records of no rank after every event, as read
  int64_t trailing_records_ = 0, trailing_level_ = INT64_MIN;
  std::vector<int64_t> syncs_;  // by rank: global synchronizations finished, from its lines (-1: none)
  int64_t lines_read_ = 0, named_ = 0, exchanges_ = 0, bytes_sent_ = 0, bytes_received_ = 0;
};

}  // namespace

Status RunParallel(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& output) {
  return ParallelPhases(config, comm, input, output).Run();
}

}  // namespace rp::phases
