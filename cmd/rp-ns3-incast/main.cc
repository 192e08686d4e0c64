// rp-ns3-incast: the incast case study in ns-3 (incast.h), its marked
// packets' log tuples written as net records after the fabric's link
// records: input for rp-hops.
#include <cstdio>
#include <string>

#include "cmd/rp-ns3-incast/incast.h"
#include "lib/cli/tool.h"

namespace {

// Records from what the simulation reports; the first failure is kept.
class RecordSink : public rp::ns3incast::Sink {
 public:
  explicit RecordSink(rp::trace::Writer* out) : out_(out) {}
  void Link(const std::string& device, int port, const std::string& peer, int peer_port, int64_t rate,
            int64_t delay) override {
    rp::trace::LinkRecord l;
    l.set_device(device);
    l.set_port(port);
    l.set_peer(peer);
    l.set_peer_port(peer_port);
    l.set_rate(rate);
    l.set_delay(delay);
    if (status_.ok()) status_ = out_->Write(l);
  }
  void Tuple(const std::string& device, const char* kind, int port, const std::string& src, const std::string& dst,
             uint32_t id, uint32_t size, int64_t t) override {
    if (!status_.ok()) return;
    r_.set_device(device);
    r_.set_kind(kind);
    r_.set_port(port);
    r_.set_src(src);
    r_.set_dst(dst);
    r_.set_id(id);
    r_.set_size(size);
    r_.set_t(t);
    status_ = out_->Write(r_);
  }
  const rp::Status& status() const { return status_; }

 private:
  rp::trace::Writer* out_;
  rp::trace::NetRecord r_;
  rp::Status status_;
};

}  // namespace

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-ns3-incast",
                     "Run the path-synchronous monitoring paper's incast in ns-3 (a leaf-spine fabric, every host "
                     "sending to one) and write the marked packets' per-device log tuples as net records, after "
                     "the fabric's link records: input for rp-hops.");
  rp::cli::IoOptions io;
  tool.AddOutput(&io);
  rp::ns3incast::Spec spec;
  std::string truth;
  CLI::App& app = tool.app();
  app.add_option("--leaves", spec.leaves, "leaf switches")->check(CLI::Range(1, 64))->capture_default_str();
  app.add_option("--hosts-per-leaf", spec.hosts_per_leaf, "hosts under each leaf")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--spines", spec.spines, "spine switches")->check(CLI::Range(1, 16))->capture_default_str();
  app.add_option("--sender-rate", spec.sender_rate, "each incast sender's UDP rate")->capture_default_str();
  app.add_option("--seconds", spec.seconds, "how long the senders send")
      ->check(CLI::Range(0.0001, 10.0))
      ->capture_default_str();
  app.add_option("--receiver-queue", spec.receiver_queue, "packets the receiver's leaf queues towards it")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--mark-every", spec.mark_every, "mark one packet in N")->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--id-bits", spec.id_bits, "bits of the packet id (ids wrap and repeat)")
      ->check(CLI::Range(1, 31))
      ->capture_default_str();
  app.add_option("--clock-offset", spec.clock_offset_ns,
                 "ns: devices' clocks are off by a multiple of this, -5x to +5x (rp-hops estimates them)")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000}))
      ->capture_default_str();
  bool no_drops = false;
  app.add_flag("--no-drop-tuples", no_drops, "log no drop tuples: drops show only as missing tuples");
  app.add_option("--seed", spec.seed, "ns-3's random seed (ECMP's choice of spine)")->capture_default_str();
  app.add_option("--truth", truth, "write what the simulator knows (marked packets sent, received and dropped "
                                   "per device; clock offsets; serialisation times) as JSON to this file");
  tool.SetFooter(
      "Fabric: leaves x hosts-per-leaf hosts (h0, h1, ...) on 1 Gb/s, 1 us links; every leaf on\n"
      "every spine over 10 Gb/s, 2 us links. All hosts but h0 send 1024-byte UDP packets to h0;\n"
      "two pairs of hosts on other leaves exchange 300 Mb/s of background traffic. leaf0 queues\n"
      "--receiver-queue packets towards h0, every other device queue 1000.\n"
      "\n"
      "Examples:\n"
      "  rp-ns3-incast -o incast.ndjson.zst && rp-hops --format text incast.ndjson.zst\n"
      "  rp-ns3-incast --clock-offset 2000 --truth truth.json | rp-hops --no-paths");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    spec.log_drops = !no_drops;
    RP_ASSIGN_OR_RETURN(auto writer, rp::cli::OpenWriter(io));
    rp::trace::HeaderRecord header;
    header.set_schema(std::string(rp::trace::kSchemaVersion));
    header.set_producer({"rp-ns3-incast"});
    RP_RETURN_IF_ERROR(writer->Write(header));
    RecordSink sink(writer.get());
    const std::string ground_truth = rp::ns3incast::Run(spec, &sink);
    RP_RETURN_IF_ERROR(sink.status());
    RP_RETURN_IF_ERROR(writer->Close());
    if (!truth.empty()) {
      std::FILE* f = std::fopen(truth.c_str(), "w");
      if (f == nullptr) return rp::InputError(truth + ": cannot write the ground truth");
      std::fwrite(ground_truth.data(), 1, ground_truth.size(), f);
      std::fclose(f);
    }
    return rp::OkStatus();
  });
}
