// rp-pcap: packet captures, one per device port and direction, as rp-hops'
// input (net records after the topology's link records).
#include <fstream>
#include <string>
#include <vector>

#include "lib/cli/tool.h"
#include "lib/hops/pcap.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-pcap",
                     "Turn packet captures (tcpdump -w, one per device port and direction) into net records for "
                     "rp-hops: each marked packet (IPv4 with the given DSCP) in a capture is a tuple of that "
                     "device, port and kind.");
  rp::cli::IoOptions io;
  tool.AddOutput(&io);
  std::vector<std::string> captures, links, names;
  std::string topology;
  rp::hops::PcapConfig config;
  CLI::App& app = tool.app();
  app.add_option("captures", captures, "KIND[+KIND]@DEVICE[:PORT]=FILE: what the capture saw, e.g. "
                                       "switch_in@sw:1=sw-p1.in.pcap (none: write the topology's link "
                                       "records only)");
  app.add_option("--link", links, "DEVICE:PORT=PEER:PORT[,RATE[,DELAY_NS]]: a link, both directions (RATE in "
                                  "bits/s, k, M, G allowed)")
      ->type_name("SPEC")
      ->allow_extra_args(false);  // one spec an occurrence: the captures follow
  app.add_option("--topology", topology, "a file of --link specs, one per line (# starts a comment)")
      ->type_name("FILE");
  app.add_option("--dscp", config.dscp, "the DSCP that marks a packet to follow (-1: every IPv4 packet)")
      ->check(CLI::Range(-1, 63))
      ->capture_default_str();
  tool.AddChoice<rp::hops::IdField>("--id", &config.id,
                                    {{"ipid", rp::hops::IdField::kIpId}, {"payload", rp::hops::IdField::kPayload}},
                                    "a packet's id: the IPv4 identification field, or the first 4 bytes of the UDP "
                                    "payload (big-endian)");
  app.add_option("--name", names, "IP=NAME: call the host with this address NAME (src and dst of the tuples)")
      ->type_name("IP=NAME")
      ->allow_extra_args(false);
  tool.SetFooter(
      "Each capture is one direction of one port, as tcpdump -Q in / -Q out writes it\n"
      "(--time-stamp-precision=nano keeps nanoseconds); kinds: host_send, nic_tx, switch_in,\n"
      "switch_out, nic_rx, host_recv, drop. Captures are merged by time. Link types: Ethernet,\n"
      "Linux cooked (v1, v2), raw IP.\n"
      "Writes: rp-trace/1: the header, link records, then net records.\n"
      "\n"
      "Examples:\n"
      "  rp-pcap --link h1:0=sw:1 --link r:0=sw:0 --name 10.0.0.1=h1 --name 10.0.0.9=r \\\n"
      "      host_send+nic_tx@h1:0=h1.out.pcap switch_in@sw:1=sw1.in.pcap \\\n"
      "      switch_out@sw:0=sw0.out.pcap nic_rx+host_recv@r:0=r.in.pcap -o net.ndjson\n"
      "  rp-pcap --topology fabric.txt ... | rp-hops --calibrate 0 --format text\n"
      "  rp-pcap --topology fabric.txt > links.ndjson   # a topology file as link records");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    std::vector<rp::trace::LinkRecord> link_records;
    if (!topology.empty()) {
      std::ifstream in(topology);
      if (!in) return rp::InputError(topology + ": cannot read the topology");
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        line = line.substr(0, line.find('#'));
        line.erase(0, line.find_first_not_of(" \t"));
        line.erase(line.find_last_not_of(" \t\r") + 1);
        if (line.empty()) continue;
        rp::Status s = rp::hops::ParseLink(line, &link_records);
        if (!s.ok()) return rp::InputError(topology + ":" + std::to_string(n) + ": " + s.message());
      }
    }
    for (const std::string& l : links) RP_RETURN_IF_ERROR(rp::hops::ParseLink(l, &link_records));
    if (captures.empty() && link_records.empty()) {
      return rp::InputError("nothing to convert: give captures, or a topology (--link, --topology) to write");
    }
    for (const std::string& n : names) {
      const size_t eq = n.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == n.size()) {
        return rp::InputError("--name \"" + n + "\": want IP=NAME");
      }
      config.names[n.substr(0, eq)] = n.substr(eq + 1);
    }
    std::vector<rp::hops::CaptureSpec> specs(captures.size());
    for (size_t i = 0; i < captures.size(); ++i) RP_RETURN_IF_ERROR(rp::hops::ParseCapture(captures[i], &specs[i]));
    std::vector<std::string> files;
    for (const auto& s : specs) files.push_back(s.file);
    RP_ASSIGN_OR_RETURN(auto writer, rp::cli::OpenWriter(io, files));
    return rp::hops::WriteCaptures(config, link_records, specs, *writer);
  });
}
