#include "lib/cat/convert.h"

#include <spdlog/spdlog.h>

#include "lib/otf2/export.h"
#include "lib/otf2/import.h"

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

}  // namespace rp::cat
