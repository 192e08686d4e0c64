#include "lib/cat/convert.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "lib/otf2/export.h"
#include "lib/otf2/import.h"
#include "lib/trace/output_file.h"

namespace rp::cat {

Status FromOtf2(const std::string& archive, trace::Writer& out) {
  RP_ASSIGN_OR_RETURN(const otf2::ImportCounts counts, otf2::Import(archive, out));
  RP_RETURN_IF_ERROR(out.Close());
  spdlog::info("{}: {} ranks, {} mpi records, {} samples (computation by region){}", archive, counts.ranks,
               counts.mpi, counts.samples, counts.creator.empty() ? "" : "; written by " + counts.creator);
  if (counts.local_calls > 0) {
    spdlog::info("{} calls of MPI functions rp does not record (MPI_Comm_rank, MPI_Wtime, ...) kept as computation",
                 counts.local_calls);
  }
  if (counts.skipped_locations > 0) {
    spdlog::warn("skipped {} locations that are not MPI ranks (threads, accelerators, metrics) and their {} events",
                 counts.skipped_locations, counts.skipped_location_events);
  }
  for (const auto& [kind, n] : counts.skipped) spdlog::warn("not converted: {} {}", n, kind);
  return OkStatus();
}

Status ToOtf2(trace::InputSet& input, const std::string& dir, bool force) {
  RP_ASSIGN_OR_RETURN(const otf2::ExportCounts counts, otf2::Export(input, dir, force));
  spdlog::info("{}: {} ranks, {} MPI calls as {} OTF2 events", dir, counts.ranks, counts.mpi, counts.events);
  for (const auto& [kind, n] : counts.skipped) spdlog::warn("not converted: {} {}", n, kind);
  return OkStatus();
}

Status ToPerfetto(trace::InputSet& input, const std::vector<std::string>& inputs, const std::string& path,
                  const perfetto::ExportOptions& options, bool force) {
  RP_RETURN_IF_ERROR(trace::CheckOutputIsNotInput(path, inputs));
  if (path == "-" && !force && ::isatty(STDOUT_FILENO)) {
    return InputError("refusing to write a binary Perfetto trace to a terminal (give a FILE, a pipe, or -f)");
  }
  RP_ASSIGN_OR_RETURN(auto out, trace::OpenOutput(path, trace::OutputOptions{}));
  RP_ASSIGN_OR_RETURN(const perfetto::ExportCounts c, perfetto::Export(input, std::move(out), options));
  spdlog::info("{}: {} ranks, {} MPI calls, {} messages, {} sampled function slices, {} critical path steps", path,
               c.ranks, c.calls, c.flows, c.code_slices, c.path_steps);
  if (c.flows_cut > 0) spdlog::info("{} messages with one end outside the window not drawn", c.flows_cut);
  if (c.unmatched > 0) spdlog::warn("{} sends or receives without a partner in the trace: no flow", c.unmatched);
  if (c.clipped > 0) {
    spdlog::warn("{} slices began before the previous one on their track ended; begun at its end instead", c.clipped);
  }
  if (c.calls == 0 && c.path_steps == 0) return NothingError("nothing in the stream (or the window) to draw");
  return OkStatus();
}

}  // namespace rp::cat
