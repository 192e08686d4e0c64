#include "lib/phases/phases.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "lib/base/version.h"
#include "lib/trace/codec.h"
#include "lib/trace/input_set.h"
#include "lib/window/window.h"

namespace rp::phases {
namespace {

constexpr uint64_t kFnvPrime = 1099511628211ull;

uint64_t Fnv(uint64_t hash, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) hash = (hash ^ p[i]) * kFnvPrime;
  return hash;
}

// What rp-phases knows of a phase while its window is written.
struct Phase {
  int64_t id = 0;
  int64_t first_t0 = INT64_MAX;
  int64_t last_t1 = INT64_MIN;
  int64_t close = INT64_MIN;  // latest exit of its closing synchronization
  int64_t events = 0;
  Signature signature;
  std::vector<size_t> lines;  // indices in the window, input order
};

}  // namespace

uint64_t Signature::FunctionHash(std::string_view function) {
  return Fnv(14695981039346656037ull, function.data(), function.size());
}

void Signature::Add(int64_t rank, uint64_t function_hash, int64_t site) {
  if (rank < 0) return;
  if (static_cast<size_t>(rank) >= ranks_.size()) ranks_.resize(rank + 1);
  RankHash& r = ranks_[rank];
  const uint64_t call = Fnv(function_hash, &site, sizeof site);
  if (r.any && call == r.last) return;  // a repeat: polling loops of any length look alike
  r.any = true;
  r.last = call;
  r.hash = Fnv(r.hash, &call, sizeof call);
}

std::string Signature::Hex() const {
  uint64_t hash = 14695981039346656037ull;
  for (size_t rank = 0; rank < ranks_.size(); ++rank) {
    if (!ranks_[rank].any) continue;
    const uint64_t r = rank;
    hash = Fnv(hash, &r, sizeof r);
    hash = Fnv(hash, &ranks_[rank].hash, sizeof ranks_[rank].hash);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

namespace {

// Writes records of a window tagged with their phase id.
Status WriteTagged(const window::Window& w, const std::vector<size_t>& records, int64_t id, trace::Writer* writer) {
  for (size_t i : records) {
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

}  // namespace

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

  std::unordered_map<std::string, int64_t> clusters;  // signature -> cluster id
  std::vector<int64_t> iterations;                    // by cluster
  int64_t previous_close = INT64_MIN;
  int64_t phases_written = 0;
  int64_t last_written = -1;  // the latest phase id written
  int64_t events = 0;         // mpi records
  // Functions this version does not know all sign as "?".
  std::vector<uint64_t> function_hash(std::size(mpi::kFunctions) + 1);
  for (size_t fn = 0; fn < std::size(mpi::kFunctions); ++fn) function_hash[fn] = Signature::FunctionHash(mpi::kFunctions[fn].name);
  function_hash.back() = Signature::FunctionHash("?");
  window::Window w;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, windows.Next(&w));
    if (!more) break;
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
      ++events;
      // The application's time runs from MPI_Init's return to the call of
      // MPI_Finalize: the first phase starts, and the last ends, there.
      const mpi::Category category = e.category();
      p.first_t0 = std::min(p.first_t0, category == mpi::Category::kInit ? e.t1 : e.t0);
      p.last_t1 = std::max(p.last_t1, category == mpi::Category::kFinalize ? e.t0 : e.t1);
      if (r.global_sync) p.close = std::max(p.close, e.t1);
      p.signature.Add(e.rank, function_hash[e.fn >= 0 ? e.fn : function_hash.size() - 1], e.site);
    }
    for (auto& [id, p] : phases) {
      // A phase already written: records of a rank that came after the
      // window of their phase ended (WindowReader::hold_report warns).
      if (id <= last_written) {
        RP_RETURN_IF_ERROR(WriteTagged(w, p.lines, id, writer));
        continue;
      }
      last_written = id;
      trace::PhaseRecord phase;
      phase.set_id(id);
      phase.set_t0(id == 0 || previous_close == INT64_MIN ? (p.first_t0 == INT64_MAX ? 0 : p.first_t0)
                                                           : previous_close);
      const int64_t t1 = p.close != INT64_MIN ? p.close : p.last_t1;
      phase.set_t1(std::max(phase.t0, t1 == INT64_MIN ? phase.t0 : t1));
      previous_close = p.close != INT64_MIN ? p.close : previous_close;
      const std::string signature = p.signature.Hex();
      auto [it, added] = clusters.emplace(signature, static_cast<int64_t>(clusters.size()));
      if (added) iterations.push_back(0);
      phase.set_signature(signature);
      phase.set_cluster(it->second);
      phase.set_iteration(iterations[it->second]++);
      phase.set_events(p.events);
      // A run without any global synchronization is one phase.
      if (id == 0 && p.close == INT64_MIN && windows.finished()) phase.set_kind("run");
      RP_RETURN_IF_ERROR(writer->Write(phase));
      ++phases_written;
      RP_RETURN_IF_ERROR(WriteTagged(w, p.lines, id, writer));
    }
  }
  RP_RETURN_IF_ERROR(writer->Close());
  window::WarnAboutInput(windows);
  spdlog::debug("{} phases in {} clusters", phases_written, clusters.size());
  // Samples alone make no phase worth the name (exit 1, as the other stages).
  if (events == 0) return NothingError("the trace has no mpi records: no phases");
  return OkStatus();
}

}  // namespace rp::phases
