// rp-clocksync: one global clock without causality violations.
#include "cmd/rp-clocksync/options.h"
#include "lib/cli/tool.h"
#include "lib/clocksync/clocksync.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-clocksync", "Put every rank's times on rank 0's clock and repair causality violations.");
  rp::cli::IoOptions io;
  rp::clocksync::Config config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  rp::clocksync::Options options(tool, &config);
  tool.SetFooter(
      "Reads: rp-trace/1 with local times (rp-record's clock records for --method pingpong).\n"
      "Writes: the same records with times on rank 0's clock (header \"clock\":\"global\"),\n"
      "each window sorted by its new times, then a clock record per rank (method, offset\n"
      "at its first event, drift in ppm, events moved by the repair, largest move).\n"
      "\n"
      "Examples:\n"
      "  rp-clocksync --report run.ndjson.zst -o synced.ndjson.zst\n"
      "  rp-cat old-run.ndjson | rp-clocksync --method gaps | rp-phases | rp-cpath");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    options.Finish();
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams(config.method == rp::clocksync::Method::kGaps));
    config.read = streams.read;
    return rp::clocksync::Run(config, *streams.input, *streams.output);
  });
}
