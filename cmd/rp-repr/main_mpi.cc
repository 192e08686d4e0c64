// rp-repr-mpi: rp-repr on the processes of an MPI job, each reading its
// share of a split trace and writing a part of a split output.
#include "cmd/rp-repr/options.h"
#include "lib/cli/split_io.h"
#include "lib/cli/tool.h"
#include "lib/dist/mpi_comm.h"
#include "lib/repr/parallel.h"

int main(int argc, char** argv) {
  rp::dist::MpiSession mpi(&argc, &argv);
  rp::dist::Comm& comm = mpi.comm();
  rp::cli::Tool tool("rp-repr-mpi", "rp-repr on the processes of an MPI job, over a split trace.");
  rp::cli::IoOptions io;
  rp::repr::StageConfig config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  rp::repr::AddReprOptions(tool, &config);
  bool no_passthrough = false;
  tool.app().add_flag("--no-passthrough", no_passthrough,
                      "write only the path records (one stream, by process 0), not the input's");
  tool.SetFooter(
      "Reads: a split trace after rp-clocksync-mpi and rp-phases-mpi (without phase records\n"
      "the whole run is one phase); process p of P reads about N/P of its parts. Writes: a\n"
      "split trace, the index at -o and one part per process beside it, which every rp tool\n"
      "reads as rp-repr's output on the whole trace, byte for byte (with --no-passthrough,\n"
      "one stream of the path, path_interval, path_profile and path_diff records). Give at\n"
      "least as many parts as processes.\n"
      "Each process propagates its ranks' path sets over the graph split by ranks (replayed\n"
      "in rounds); a phase's k paths are chosen from every process's candidates and walked\n"
      "back where each task ran; process 0 keeps the path profiles and writes the records.\n"
      "For a report: rp-report on the output.\n"
      "\n"
      "Examples:\n"
      "  mpirun -np 8 rp-repr-mpi -k 8 phased.ndjson.zst -o repr.ndjson.zst\n"
      "  mpirun -np 8 rp-repr-mpi --no-passthrough --space prof phased.ndjson.zst -o prof.ndjson\n"
      "  rp-cat -t path repr.ndjson.zst | jq -c '{phase, percentile, cost}'");
  const int code = tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(rp::cli::SplitIo split,
                        rp::cli::OpenSplitIo("rp-repr-mpi", io, no_passthrough, " (or --no-passthrough)"));
    config.passthrough = !no_passthrough;
    config.read.hold_limit = io.hold;
    return rp::repr::RunParallel(config, comm, *split.input, split.output);
  });
  return rp::dist::EndStage(comm, code);
}
