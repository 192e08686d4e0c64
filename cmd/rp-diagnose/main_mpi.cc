// rp-diagnose-mpi: rp-diagnose on the processes of an MPI job, each reading
// its share of a split trace and writing a part of a split output.
#include "cmd/rp-diagnose/options.h"
#include "lib/cli/split_io.h"
#include "lib/cli/tool.h"
#include "lib/diagnose/parallel.h"
#include "lib/dist/mpi_comm.h"

int main(int argc, char** argv) {
  rp::dist::MpiSession mpi(&argc, &argv);
  rp::dist::Comm& comm = mpi.comm();
  rp::cli::Tool tool("rp-diagnose-mpi", "rp-diagnose on the processes of an MPI job, over a split trace.");
  rp::cli::IoOptions io;
  rp::diagnose::Config config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  CLI::App& app = tool.app();
  rp::diagnose::DiagnoseOptions options(app, &config);
  bool no_passthrough = false;
  app.add_flag("--no-passthrough", no_passthrough,
               "write only the diagnosis records (one stream, by process 0), not the input's");
  tool.SetFooter(
      "Reads: a split trace after rp-cpath-mpi (rp-clocksync-mpi | rp-phases-mpi |\n"
      "rp-cpath-mpi: the critical path's records come with it); process p of P reads about\n"
      "N/P of its parts. Writes: a split trace, the index at -o and one part per process\n"
      "beside it, which every rp tool reads as rp-diagnose's output on the whole trace, byte\n"
      "for byte (with --no-passthrough, one stream of the efficiency, finding and timeline\n"
      "records). Give at least as many parts as processes.\n"
      "Each process measures its ranks' phases on the graph split by ranks (the ideal time's\n"
      "path sets and the balancing what-ifs replayed in rounds, a late delayer's side of a\n"
      "delay cost computed where its rank is read); process 0 sums the phases and writes\n"
      "the findings. For a report: rp-report [--format html] on the output.\n"
      "\n"
      "Examples:\n"
      "  mpirun -np 8 rp-diagnose-mpi cpath.ndjson.zst -o diag.ndjson.zst\n"
      "  mpirun -np 8 rp-diagnose-mpi --no-passthrough cpath.ndjson.zst -o findings.ndjson\n"
      "  rp-cat -t finding diag.ndjson.zst | jq -c '{category, severity}'\n"
      "  rp-report --format html diag.ndjson.zst -o report.html");
  const int code = tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(rp::cli::SplitIo split,
                        rp::cli::OpenSplitIo("rp-diagnose-mpi", io, no_passthrough, " (or --no-passthrough)"));
    config.passthrough = !no_passthrough;
    options.Finish();
    config.read.hold_limit = io.hold;
    return rp::diagnose::RunParallel(config, comm, *split.input, split.output);
  });
  return rp::dist::EndStage(comm, code);
}
