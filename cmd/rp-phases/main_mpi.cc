// rp-phases-mpi: rp-phases on the processes of an MPI job, each reading its
// share of a split trace and writing a part of a split output.
#include "lib/cli/split_io.h"
#include "lib/cli/tool.h"
#include "lib/dist/mpi_comm.h"
#include "lib/phases/parallel.h"

int main(int argc, char** argv) {
  rp::dist::MpiSession mpi(&argc, &argv);
  rp::dist::Comm& comm = mpi.comm();
  rp::cli::Tool tool("rp-phases-mpi", "rp-phases on the processes of an MPI job, over a split trace.");
  rp::cli::IoOptions io;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  tool.SetFooter(
      "Reads: a split trace (rp-record --split N, rp-cat --split N); process p of P reads\n"
      "about N/P of its parts. Writes: a split trace, the index at -o and one part per\n"
      "process beside it, which every rp tool reads as rp-phases' output on the whole\n"
      "trace, byte for byte. Give at least as many parts as processes.\n"
      "\n"
      "Examples:\n"
      "  mpirun -np 8 rp-phases-mpi run.ndjson.zst -o phased.ndjson.zst\n"
      "  rp-cpath phased.ndjson.zst");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(rp::cli::SplitIo split, rp::cli::OpenSplitIo("rp-phases-mpi", io, false));
    rp::phases::Config config;
    config.read.hold_limit = io.hold;
    return rp::phases::RunParallel(config, comm, *split.input, split.output);
  });
}
