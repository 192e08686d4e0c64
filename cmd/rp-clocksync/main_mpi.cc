// rp-clocksync-mpi: rp-clocksync on the processes of an MPI job, each
// reading its share of a split trace and writing a part of a split output.
#include "cmd/rp-clocksync/options.h"
#include "lib/cli/split_io.h"
#include "lib/cli/tool.h"
#include "lib/clocksync/parallel.h"
#include "lib/dist/mpi_comm.h"

int main(int argc, char** argv) {
  rp::dist::MpiSession mpi(&argc, &argv);
  rp::dist::Comm& comm = mpi.comm();
  rp::cli::Tool tool("rp-clocksync-mpi", "rp-clocksync on the processes of an MPI job, over a split trace.");
  rp::cli::IoOptions io;
  rp::clocksync::Config config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  rp::clocksync::Options options(tool, &config);
  tool.SetFooter(
      "Reads: a split trace with local times (rp-record --split N, rp-cat --split N), as\n"
      "rp-record writes it (before rp-phases); process p of P reads about N/P of its parts.\n"
      "Writes: a split trace, the index at -o and one part per process beside it, which\n"
      "every rp tool reads as rp-clocksync's output on the whole trace, byte for byte.\n"
      "Give at least as many parts as processes. Each window's messages and collectives\n"
      "are matched across the processes and the repair is replayed in rounds that carry\n"
      "only the times crossing between them.\n"
      "\n"
      "Examples:\n"
      "  mpirun -np 8 rp-clocksync-mpi run.ndjson.zst -o synced.ndjson.zst\n"
      "  mpirun -np 8 rp-phases-mpi synced.ndjson.zst -o phased.ndjson.zst");
  const int code = tool.Main(argc, argv, [&]() -> rp::Status {
    options.Finish();
    RP_ASSIGN_OR_RETURN(rp::cli::SplitIo split, rp::cli::OpenSplitIo("rp-clocksync-mpi", io, false));
    config.read.hold_limit = io.hold;
    return rp::clocksync::RunParallel(config, comm, *split.input, split.output);
  });
  return rp::dist::EndStage(comm, code);
}
