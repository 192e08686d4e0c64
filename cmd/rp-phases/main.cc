// rp-phases: the run cut into its phases, repeated phases recognised.
#include "lib/cli/tool.h"
#include "lib/phases/phases.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-phases", "Cut a run into phases between global synchronizations and cluster repeated ones.");
  rp::cli::IoOptions io;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  tool.SetFooter(
      "Reads: rp-trace/1 (after rp-clocksync for meaningful phase times).\n"
      "Writes: the same records, each phase's phase record (id, t0, t1, signature,\n"
      "cluster, iteration, events) before its records, every mpi and sample record\n"
      "tagged with its phase id.\n"
      "\n"
      "Examples:\n"
      "  rp-clocksync run.ndjson.zst | rp-phases -o phased.ndjson.zst\n"
      "  rp-phases run.ndjson.zst | rp-cat -t phase | jq -c '{id, cluster, iteration}'");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    rp::phases::Config config;
    config.read = streams.read;
    return rp::phases::Run(config, *streams.input, *streams.output);
  });
}
