// rp-hops: sampled packets' paths rebuilt through the network.
#include "lib/cli/tool.h"
#include "lib/hops/run.h"
#include "lib/report/format_option.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-hops",
                     "Rebuild marked packets' paths through the network from the tuples each device logged: "
                     "per-hop delays, drops and where they happen.");
  rp::cli::IoOptions io;
  tool.AddInputs(&io);
  tool.AddOutput(&io);
  rp::hops::RunConfig config;
  CLI::App& app = tool.app();
  app.add_option("--window", config.window,
                 "ns: a packet's arrival at the next device is looked for this far from its expected time; "
                 "tuples may come this much out of order; a packet not seen again within it was dropped or "
                 "lost its telemetry")
      ->type_name("NS")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 50))
      ->capture_default_str();
  app.add_option("--calibrate", config.calibrate,
                 "net tuples read first to estimate each device's clock offset from the links' least delays "
                 "(0: trust the clocks)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
      ->capture_default_str();
  rp::report::FormatOption format(tool);
  bool no_paths = false;
  app.add_flag("--no-paths", no_paths, "write only the summaries, not one hop_path record per packet");
  tool.SetFooter(
      "Reads: rp-trace/1 with link records (the topology: device/port -> peer/port, rate,\n"
      "propagation delay), then net records (one tuple per packet per device: host_send,\n"
      "nic_tx, switch_in, switch_out, nic_rx, host_recv or drop; src, dst, packet id, size, t).\n"
      "Writes: the header, the link records, one hop_path record per packet (its devices,\n"
      "arrival and departure at each, link and device delays, status complete, dropped, gap or\n"
      "loop), then hop_summary records: per device (delay percentiles, drops, clock offset),\n"
      "per link, per sending host (latency percentiles; time in each device, for stacked bars)\n"
      "and for the run (with counts of gaps, loops, duplicates and bad tuples).\n"
      "--format text or markdown: the dominant hop, drop sites, each device's, link's and\n"
      "sender's delay percentiles; html adds the heat map of latency by send time and\n"
      "sender, and each sender's latency stacked by device.\n"
      "A packet's next hop is the link from the port it left by; there it is the tuple of the\n"
      "same src, dst and id nearest the departure plus the link's delay, within --window.\n"
      "\n"
      "Examples:\n"
      "  rp-hops net.ndjson.zst -o paths.ndjson.zst\n"
      "  rp-hops --format text net.ndjson.zst\n"
      "  rp-hops --format html net.ndjson.zst -o network.html\n"
      "  rp-hops --no-paths net.ndjson | rp-cat -t hop_summary | jq -c 'select(.kind == \"device\")'");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    config.paths = !no_paths;
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    return format.Run(*streams.output,
                      [&](rp::trace::Writer& out) { return rp::hops::Run(config, *streams.input, out); });
  });
}
