#include "lib/phases/phases.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "lib/base/fnv.h"
#include "lib/base/version.h"
#include "lib/phases/phase_table.h"
#include "lib/trace/codec.h"
#include "lib/trace/input_set.h"
#include "lib/window/window.h"

namespace rp::phases {

uint64_t Signature::FunctionHash(std::string_view function) {
  return Fnv1a(kFnvOffset, function.data(), function.size());
}

void Signature::Add(int64_t rank, uint64_t function_hash, int64_t site) {
  if (rank < 0) return;
  if (static_cast<size_t>(rank) >= ranks_.size()) ranks_.resize(rank + 1);
  RankHash& r = ranks_[rank];
  const uint64_t call = Fnv1a(function_hash, &site, sizeof site);
  if (r.any && call == r.last) return;  // a repeat: polling loops of any length look alike
  r.any = true;
  r.last = call;
  r.hash = Fnv1a(r.hash, &call, sizeof call);
}

namespace {

// splitmix64's finaliser: every bit of the input moves every bit of the
// output, so sums of mixed values keep ranks and hashes apart.
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t Signature::Sum() const {
  uint64_t sum = 0;
  for (size_t rank = 0; rank < ranks_.size(); ++rank) {
    if (ranks_[rank].any) sum += Mix(ranks_[rank].hash ^ Mix(rank + 1));
  }
  return sum;
}

std::string Signature::Hex() const { return Hex(Sum()); }

std::string Signature::Hex(uint64_t sum) {
  const uint64_t hash = Mix(sum);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

namespace internal {

PhaseCollector::PhaseCollector() : function_hash_(std::size(mpi::kFunctions) + 1) {
  // Functions this version does not know all sign as "?".
  for (size_t fn = 0; fn < std::size(mpi::kFunctions); ++fn) {
    function_hash_[fn] = Signature::FunctionHash(mpi::kFunctions[fn].name);
  }
  function_hash_.back() = Signature::FunctionHash("?");
}

std::map<int64_t, Phase> PhaseCollector::Collect(const window::Window& w) {
  std::map<int64_t, Phase> phases;
  Phase* last = nullptr;  // runs of records share a level: one map lookup per run
  for (size_t i = 0; i < w.lines.size(); ++i) {
    const window::Line& r = w.lines[i];
    if (last == nullptr || last->id != r.level) {
      last = &phases[r.level];
      last->id = r.level;
    }
    Phase& p = *last;
    p.lines.push_back(i);
    if (r.event < 0) continue;
    const window::Event& e = w.events[r.event];
    ++p.events;
    ++events_;
    // The application's time runs from MPI_Init's return to the call of
    // MPI_Finalize: the first phase starts, and the last ends, there.
    const mpi::Category category = e.category();
    p.first_t0 = std::min(p.first_t0, category == mpi::Category::kInit ? e.t1 : e.t0);
    p.last_t1 = std::max(p.last_t1, category == mpi::Category::kFinalize ? e.t0 : e.t1);
    if (r.global_sync) p.close = std::max(p.close, e.t1);
    p.signature.Add(e.rank, function_hash_[e.fn >= 0 ? e.fn : function_hash_.size() - 1], e.site);
  }
  return phases;
}

trace::PhaseRecord PhaseNamer::Next(int64_t id, int64_t first_t0, int64_t last_t1, int64_t close, int64_t events,
                                    const std::string& signature, bool run) {
  trace::PhaseRecord phase;
  phase.set_id(id);
  phase.set_t0(id == 0 || previous_close_ == INT64_MIN ? (first_t0 == INT64_MAX ? 0 : first_t0) : previous_close_);
  const int64_t t1 = close != INT64_MIN ? close : last_t1;
  phase.set_t1(std::max(phase.t0, t1 == INT64_MIN ? phase.t0 : t1));
  previous_close_ = close != INT64_MIN ? close : previous_close_;
  auto [it, added] = clusters_.emplace(signature, static_cast<int64_t>(clusters_.size()));
  if (added) iterations_.push_back(0);
  phase.set_signature(signature);
  phase.set_cluster(it->second);
  phase.set_iteration(iterations_[it->second]++);
  phase.set_events(events);
  if (run) phase.set_kind("run");
  return phase;
}

// Writes records of a window tagged with their phase id.
Status WriteTagged(const window::Window& w, const std::vector<size_t>& lines, int64_t id, trace::Writer* writer) {
  for (size_t i : lines) {
    const window::Line& r = w.lines[i];
    if (r.type == trace::RecordType::kPhase) continue;  // an earlier rp-phases': replaced
    if (r.type != trace::RecordType::kMpi && r.type != trace::RecordType::kSample) {
      RP_RETURN_IF_ERROR(writer->WriteRaw(w.text(r)));
      continue;
    }
    // A canonical line without a phase has no "phase" key to look for;
    // when its last member comes before phase in the schema, the phase
    // goes right before the closing brace, where Encode would put it.
    const int phase_field = r.type == trace::RecordType::kMpi ? int{trace::MpiRecord::k_phase}
                                                              : int{trace::SampleRecord::k_phase};
    const bool absent = r.canonical && ((r.present >> phase_field) & 1) == 0;
    if (absent && r.last_field < phase_field) {
      const uint32_t brace = r.length - 1;
      const trace::SpanEdit append[] = {{{brace, brace}, id, "phase"}};
      RP_RETURN_IF_ERROR(writer->WriteSpliced(w.text(r), append));
      continue;
    }
    const trace::IntEdit phase_id[] = {{"phase", id, absent}};
    RP_RETURN_IF_ERROR(writer->WriteEdited(r.type, w.text(r), phase_id));
  }
  return OkStatus();
}

}  // namespace internal

Status Run(const Config& config, trace::InputSet& input, trace::Writer& out) {
  // A record's phase is its rank's synchronization level: windows need not
  // wait for messages in flight to be received.
  window::WindowReader windows(input, window::Boundaries::kEverySync, config.read);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  trace::Writer* writer = &out;
  // Phase records of an earlier rp-phases are replaced by this run's.
  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-phases ") + kVersion, writer, nullptr, false,
                                          trace::RecordType::kPhase));

  internal::PhaseCollector collector;
  internal::PhaseNamer namer;
  int64_t phases_written = 0;
  int64_t last_written = -1;  // the latest phase id written
  window::Window w;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, windows.Next(&w));
    if (!more) break;
    for (auto& [id, p] : collector.Collect(w)) {
      // A phase already written: records of a rank that came after the
      // window of their phase ended (WindowReader::hold_report warns).
      if (id <= last_written) {
        RP_RETURN_IF_ERROR(internal::WriteTagged(w, p.lines, id, writer));
        continue;
      }
      last_written = id;
      // A run without any global synchronization is one phase.
      const bool run = id == 0 && p.close == INT64_MIN && windows.finished();
      RP_RETURN_IF_ERROR(
          writer->Write(namer.Next(id, p.first_t0, p.last_t1, p.close, p.events, p.signature.Hex(), run)));
      ++phases_written;
      RP_RETURN_IF_ERROR(internal::WriteTagged(w, p.lines, id, writer));
    }
  }
  RP_RETURN_IF_ERROR(writer->Close());
  window::WarnAboutInput(windows);
  spdlog::debug("{} phases in {} clusters", phases_written, namer.clusters());
  // Samples alone make no phase worth the name (exit 1, as the other stages).
  if (collector.events() == 0) return NothingError("the trace has no mpi records: no phases");
  return OkStatus();
}

}  // namespace rp::phases
