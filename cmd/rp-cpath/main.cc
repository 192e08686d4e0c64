// rp-cpath: the critical path of a run, its profile, what-if zeroing and imbalance.
#include <map>

#include "lib/cli/tool.h"
#include "lib/cpath/cpath.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-cpath",
                     "Find the critical path of a run: which ranks and call sites made it as long as it was.");
  rp::cli::IoOptions io;
  rp::cpath::Options options;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  CLI::App& app = tool.app();
  const std::map<std::string, rp::cpath::Algo> algos{{"exact", rp::cpath::Algo::kExact},
                                                     {"replay", rp::cpath::Algo::kReplay},
                                                     {"heuristic", rp::cpath::Algo::kHeuristic}};
  std::string algo = "exact";
  app.add_option("--algo", algo,
                 "exact: longest path on the program activity graph (default); replay: Scalasca-style backward "
                 "replay from the last call (holds the whole trace in memory); heuristic: the mpi-graph "
                 "topological-sorting heuristic (computation only)")
      ->check(CLI::IsMember({"exact", "replay", "heuristic"}));
  app.add_option("-j,--jobs", options.jobs, "threads building graphs (the output does not depend on it)")
      ->check(CLI::Range(1, 256));
  bool no_passthrough = false, no_zeroing = false, no_phases = false;
  app.add_flag("--no-passthrough", no_passthrough, "write only the cp_* records, not the input's");
  std::string format = "ndjson";
  app.add_option("--format", format, "ndjson (records) or text (a report for people)")
      ->check(CLI::IsMember({"ndjson", "text"}));
  app.add_flag("--no-zeroing", no_zeroing, "skip the what-if zeroing (one longest-path pass per site)");
  app.add_option("--top", options.top, "cp_top: the sites with more than 1/M of the critical path")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--no-phases", no_phases, "only whole-run summaries, even when rp-phases tagged the records");
  app.add_flag("--phase-ranks", options.phase_ranks, "per-phase imbalance per rank too");
  tool.SetFooter(
      "Reads: rp-trace/1, best after rp-clocksync (and rp-phases for per-phase results).\n"
      "Writes: the input records, then after each window the cp_segment records of the\n"
      "critical path decided so far; at the end per phase and for the run: cp_summary,\n"
      "cp_profile (CP% next to time% per site and function), cp_zeroing, cp_top and\n"
      "cp_imbalance (per call, process and program).\n"
      "\n"
      "Examples:\n"
      "  rp-clocksync run.ndjson.zst | rp-phases | rp-cpath -o cpath.ndjson.zst\n"
      "  rp-cpath --format text run.ndjson.zst\n"
      "  rp-cpath --no-passthrough run.ndjson.zst | rp-cat -t cp_profile | head\n"
      "  rp-cpath -j 2 --algo heuristic run.ndjson.zst | rp-cat -t cp_summary");
  return tool.Main(argc, argv, [&] {
    options.algo = algos.at(algo);
    options.passthrough = !no_passthrough;
    options.zeroing = !no_zeroing;
    options.phases = !no_phases;
    options.text = format == "text";
    return rp::cpath::Run(io, options);
  });
}
