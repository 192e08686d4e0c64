// rp-cpath-mpi: rp-cpath on the processes of an MPI job, each reading its
// share of a split trace and writing a part of a split output.
#include "lib/cli/split_io.h"
#include "lib/cli/tool.h"
#include "lib/cpath/parallel.h"
#include "lib/dist/mpi_comm.h"

int main(int argc, char** argv) {
  rp::dist::MpiSession mpi(&argc, &argv);
  rp::dist::Comm& comm = mpi.comm();
  rp::cli::Tool tool("rp-cpath-mpi", "rp-cpath on the processes of an MPI job, over a split trace.");
  rp::cli::IoOptions io;
  rp::cpath::Config config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  CLI::App& app = tool.app();
  bool no_passthrough = false, no_zeroing = false, no_phases = false;
  app.add_flag("--no-passthrough", no_passthrough, "write only the cp_* records (one stream, by process 0)");
  app.add_flag("--no-zeroing", no_zeroing, "skip the what-if zeroing (one longest-path pass per site and per sampled function)");
  app.add_option("--top", config.top, "cp_top: the sites and functions with more than 1/M of the critical path")
      ->type_name("M")
      ->check(rp::cli::Between(1, 1000));
  app.add_flag("--no-phases", no_phases, "only whole-run summaries, even when rp-phases tagged the records");
  app.add_flag("--phase-ranks", config.phase_ranks, "per-phase imbalance per rank too");
  tool.SetFooter(
      "Reads: a split trace (rp-record --split N, rp-cat --split N), best after\n"
      "rp-clocksync; process p of P reads about N/P of its parts. Writes: a split trace,\n"
      "the index at -o and one part per process beside it, which every rp tool reads as\n"
      "rp-cpath's output on the whole trace, byte for byte (with --no-passthrough, one\n"
      "stream of the cp_* records). Give at least as many parts as processes.\n"
      "The graph is split by ranks: each process holds its ranks' calls and what their\n"
      "partners on other processes' ranks tell it; the longest paths are replayed in\n"
      "rounds that carry only the lengths crossing between processes.\n"
      "\n"
      "Examples:\n"
      "  mpirun -np 8 rp-cpath-mpi synced.ndjson.zst -o cpath.ndjson.zst\n"
      "  rp-report cpath.ndjson.zst");
  const int code = tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(rp::cli::SplitIo split,
                        rp::cli::OpenSplitIo("rp-cpath-mpi", io, no_passthrough, " (or --no-passthrough)"));
    config.passthrough = !no_passthrough;
    config.zeroing = !no_zeroing;
    config.phases = !no_phases;
    config.read.hold_limit = io.hold;
    return rp::cpath::RunParallel(config, comm, *split.input, split.output);
  });
  // An error one process met may leave the others waiting for it.
  if (code != 0 && comm.size() > 1) comm.Abort(code);
  return code;
}
