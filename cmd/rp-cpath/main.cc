// rp-cpath: the critical path of a run, its profile, what-if zeroing and imbalance.
#include "cmd/rp-cpath/options.h"
#include "lib/cli/tool.h"
#include "lib/cpath/cpath.h"
#include "lib/report/format_option.h"

int main(int argc, char** argv) {
  using rp::cpath::Algo;
  rp::cli::Tool tool("rp-cpath",
                     "Find the critical path of a run: which ranks, functions, lines and call sites made it as long "
                     "as it was.");
  rp::cli::IoOptions io;
  rp::cpath::Config config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  CLI::App& app = tool.app();
  tool.AddChoice<Algo>("--algo", &config.algo,
                       {{"exact", Algo::kExact}, {"replay", Algo::kReplay}, {"heuristic", Algo::kHeuristic}},
                       "exact: longest path on the program activity graph; replay: Scalasca-style backward "
                       "replay from the last call (holds the whole trace in memory); heuristic: the mpi-graph "
                       "topological-sorting heuristic (computation only)");
  app.add_option("-j,--jobs", config.jobs, "threads building graphs (the output does not depend on it)")
      ->type_name("N")
      ->check(rp::cli::Between(1, 256));
  bool no_passthrough = false;
  app.add_flag("--no-passthrough", no_passthrough, "write only the cp_* records, not the input's");
  rp::report::FormatOption format(tool);
  rp::cpath::PathOptions path_options(app, &config);
  tool.SetFooter(
      "Reads: rp-trace/1, best after rp-clocksync (and rp-phases for per-phase results).\n"
      "Writes: the input records, then after each window the cp_segment records of the\n"
      "critical path decided so far; at the end per phase and for the run: cp_summary,\n"
      "cp_profile (CP% next to time% per call site, function, source line and calling\n"
      "context), cp_zeroing (per site and function), cp_top and cp_imbalance (per call,\n"
      "process and program).\n"
      "Functions are named by the trace's samples (rp-record --sample-hz, 200 by default):\n"
      "each computation between two calls is split over the samples inside it; one\n"
      "without samples goes to its rank's nearest sample, and without any samples to the\n"
      "function calling the MPI call that ends it.\n"
      "\n"
      "Examples:\n"
      "  rp-clocksync run.ndjson.zst | rp-phases | rp-cpath -o cpath.ndjson.zst\n"
      "  rp-cpath --format text run.ndjson.zst\n"
      "  rp-cpath --no-passthrough run.ndjson.zst | rp-cat -t cp_profile | jq -c 'select(.scope == \"function\")'\n"
      "  rp-cpath -j 2 --algo heuristic run.ndjson.zst | rp-cat -t cp_summary");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    config.passthrough = !no_passthrough;
    path_options.Finish();
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    config.read = streams.read;
    // A report renders the stage's own records: the input's are not needed.
    if (!format.records()) config.passthrough = false;
    return format.Run(*streams.output, [&](rp::trace::Writer& records) {
      return rp::cpath::Run(config, *streams.input, records);
    });
  });
}
