// rp-cpath-mpi: rp-cpath on the processes of an MPI job, each reading its
// share of a split trace and writing a part of a split output.
#include "lib/cli/split_io.h"
#include "cmd/rp-cpath/options.h"
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
  bool no_passthrough = false;
  app.add_flag("--no-passthrough", no_passthrough, "write only the cp_* records (one stream, by process 0)");
  rp::cpath::PathOptions path_options(app, &config);
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
    path_options.Finish();
    config.read.hold_limit = io.hold;
    return rp::cpath::RunParallel(config, comm, *split.input, split.output);
  });
  return rp::dist::EndStage(comm, code);
}
