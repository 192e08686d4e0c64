// rp-repr: representative paths of each phase.
#include "cmd/rp-repr/options.h"
#include "lib/cli/tool.h"
#include "lib/report/format_option.h"
#include "lib/repr/repr.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-repr",
                     "Find k representative paths of each phase: the most and least costly and those at the "
                     "percentiles between, with the tasks on each.");
  rp::cli::IoOptions io;
  rp::repr::StageConfig config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  CLI::App& app = tool.app();
  rp::repr::AddReprOptions(tool, &config);
  bool no_passthrough = false;
  app.add_flag("--no-passthrough", no_passthrough, "write only the path records, not the input's");
  rp::report::FormatOption format(tool);
  tool.SetFooter(
      "Reads: rp-trace/1, after rp-clocksync and rp-phases (without phase records the whole run\n"
      "is one phase).\n"
      "Writes: the input records, then for each phase as it ends its k path records (order,\n"
      "percentile, cost, share of the phase's time, ranks visited), each followed by its\n"
      "path_interval records (the path's tasks, consecutive ones on a rank as one interval);\n"
      "with --space prof instead, at the end, path_profile records (k costs per function and\n"
      "calling context, named by the samples as rp-cpath names them). Then path_diff records:\n"
      "what the 100% path spent more than the 0% path, and the path above the median more\n"
      "than the one below, by function.\n"
      "\n"
      "Examples:\n"
      "  rp-clocksync run.ndjson.zst | rp-phases | rp-repr -k 8 -o repr.ndjson.zst\n"
      "  rp-repr --format text phased.ndjson.zst\n"
      "  rp-repr --no-passthrough phased.ndjson.zst | rp-cat -t path | jq -c '{phase, percentile, cost}'");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    config.passthrough = !no_passthrough;
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    config.read = streams.read;
    // A report renders the stage's own records: the input's are not needed.
    if (!format.records()) config.passthrough = false;
    return format.Run(*streams.output, [&](rp::trace::Writer& records) {
      return rp::repr::Run(config, *streams.input, records);
    });
  });
}
