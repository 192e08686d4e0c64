// rp-phases-mpi: rp-phases on the processes of an MPI job, each reading its
// share of a split trace and writing a part of a split output.
#include "lib/cli/tool.h"
#include "lib/dist/mpi_comm.h"
#include "lib/phases/parallel.h"
#include "lib/trace/input_set.h"

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
    if (io.output == "-") return rp::InputError("rp-phases-mpi writes a split trace: give -o FILE");
    if (io.inputs.size() != 1 || io.inputs[0] == "-") {
      return rp::InputError("rp-phases-mpi reads one split trace, its index given by name (every process opens it)");
    }
    rp::trace::ReaderOptions reader;
    reader.lenient = io.lenient;
    rp::trace::InputSet input(io.inputs, reader);
    rp::phases::Config config;
    config.read.hold_limit = io.hold;
    rp::phases::ParallelOutput output;
    output.index = io.output;
    output.open = [&](const std::string& path) {
      rp::cli::IoOptions file = io;
      file.output = path;
      return rp::cli::OpenWriter(file, io.inputs);
    };
    return rp::phases::RunParallel(config, comm, input, output);
  });
}
