// gen-net: a synthetic network log for rp-hops' benchmark: a leaf-spine
// fabric's link records, then the net tuples of marked packets between
// random hosts (10 tuples a packet across leaves, 6 under one leaf), in
// time order as devices' logs merged by time would be. Delays: links as
// configured, devices a few hundred ns plus queueing now and then; 1 in
// 100 packets dropped at the receiver's leaf; 16-bit ids per sender, so
// ids repeat.
//   gen-net --tuples 10000000 -o /tmp/net.ndjson.zst
#include <cstdint>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "lib/cli/tool.h"
#include "lib/trace/codec.h"

namespace {

struct Spec {
  int64_t tuples = 1000000;
  int leaves = 16, hosts_per_leaf = 16, spines = 4;
  uint64_t seed = 1;
};

struct Tuple {
  int64_t t;
  uint64_t order;
  std::string line;
  bool operator>(const Tuple& o) const { return t != o.t ? t > o.t : order > o.order; }
};

}  // namespace

int main(int argc, char** argv) {
  rp::cli::Tool tool("gen-net", "Write a synthetic leaf-spine network log (link and net records) for rp-hops.");
  rp::cli::IoOptions io;
  Spec spec;
  tool.AddOutput(&io);
  auto& app = tool.app();
  app.add_option("--tuples", spec.tuples, "approximate number of net records")->check(CLI::PositiveNumber);
  app.add_option("--leaves", spec.leaves, "leaf switches")->check(CLI::Range(1, 1024));
  app.add_option("--hosts-per-leaf", spec.hosts_per_leaf, "hosts under each leaf")->check(CLI::Range(1, 1024));
  app.add_option("--spines", spec.spines, "spine switches")->check(CLI::Range(1, 256));
  app.add_option("--seed", spec.seed, "random seed");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(auto writer, rp::cli::OpenWriter(io));
    std::string line;
    rp::Status status;
    auto emit = [&](const rp::trace::Record& r) {
      if (!status.ok()) return;
      line.clear();
      rp::trace::EncodeRecord(r, &line);
      status = writer->WriteText(line);
    };
    rp::trace::Record r;
    r.type = rp::trace::RecordType::kHeader;
    r.header.set_schema(std::string(rp::trace::kSchemaVersion));
    r.header.set_producer({"gen-net"});
    emit(r);
    const int hosts = spec.leaves * spec.hosts_per_leaf;
    auto host = [](int h) { return "h" + std::to_string(h); };
    auto leaf = [](int l) { return "leaf" + std::to_string(l); };
    auto spine = [](int s) { return "spine" + std::to_string(s); };
    const int64_t host_rate = 25000000000, fabric_rate = 100000000000, prop = 500;
    auto link = [&](const std::string& a, int ap, const std::string& b, int bp, int64_t rate) {
      rp::trace::Record l;
      l.type = rp::trace::RecordType::kLink;
      for (int dir = 0; dir < 2; ++dir) {
        l.link.set_device(dir ? b : a);
        l.link.set_port(dir ? bp : ap);
        l.link.set_peer(dir ? a : b);
        l.link.set_peer_port(dir ? ap : bp);
        l.link.set_rate(rate);
        l.link.set_delay(prop);
        emit(l);
      }
    };
    for (int h = 0; h < hosts; ++h) link(host(h), 0, leaf(h / spec.hosts_per_leaf), h % spec.hosts_per_leaf, host_rate);
    for (int l = 0; l < spec.leaves; ++l) {
      for (int s = 0; s < spec.spines; ++s) link(leaf(l), spec.hosts_per_leaf + s, spine(s), l, fabric_rate);
    }
    std::mt19937_64 rng(spec.seed);
    std::exponential_distribution<double> gap(1.0 / 50.0);  // ns between packets
    std::exponential_distribution<double> queueing(1.0 / 2000.0);
    std::uniform_int_distribution<int> pick(0, hosts - 1);
    std::priority_queue<Tuple, std::vector<Tuple>, std::greater<Tuple>> pending;
    std::vector<uint32_t> next_id(hosts, 0);
    uint64_t order = 0;
    int64_t written = 0, now = 0;
    const int64_t size = 1500;
    auto push = [&](int64_t t, const rp::trace::Record& rec) {
      Tuple x{t, order++, {}};
      rp::trace::EncodeRecord(rec, &x.line);
      pending.push(std::move(x));
    };
    auto tx = [size](int64_t rate) { return size * 8 * 1000000000 / rate; };
    while (written < spec.tuples && status.ok()) {
      now += static_cast<int64_t>(gap(rng)) + 1;
      const int src = pick(rng);
      int dst = pick(rng);
      if (dst == src) dst = (dst + 1) % hosts;
      const uint32_t id = next_id[src]++ & 0xffff;
      const int sl = src / spec.hosts_per_leaf, dl = dst / spec.hosts_per_leaf;
      const int via = static_cast<int>(rng() % static_cast<uint64_t>(spec.spines));
      struct Hop {
        std::string device;
        int in, out;
        const char *in_kind, *out_kind;
        int64_t rate_out;
      };
      std::vector<Hop> path = {{host(src), 0, 0, "host_send", "nic_tx", host_rate}};
      if (sl == dl) {
        path.push_back({leaf(sl), src % spec.hosts_per_leaf, dst % spec.hosts_per_leaf, "switch_in", "switch_out",
                        host_rate});
      } else {
        path.push_back({leaf(sl), src % spec.hosts_per_leaf, spec.hosts_per_leaf + via, "switch_in", "switch_out",
                        fabric_rate});
        path.push_back({spine(via), sl, dl, "switch_in", "switch_out", fabric_rate});
        path.push_back({leaf(dl), spec.hosts_per_leaf + via, dst % spec.hosts_per_leaf, "switch_in", "switch_out",
                        host_rate});
      }
      path.push_back({host(dst), 0, 0, "nic_rx", "host_recv", 0});
      const bool drop = rng() % 100 == 0;
      int64_t t = now;
      rp::trace::Record n;
      n.type = rp::trace::RecordType::kNet;
      n.net.set_src(host(src));
      n.net.set_dst(host(dst));
      n.net.set_id(id);
      n.net.set_size(size);
      for (size_t i = 0; i < path.size(); ++i) {
        const Hop& h = path[i];
        n.net.set_device(h.device);
        n.net.set_port(h.in);
        n.net.set_kind(h.in_kind);
        n.net.set_t(t);
        push(t, n);
        if (drop && i + 2 == path.size()) {  // the receiver's leaf
          n.net.set_kind("drop");
          n.net.set_port(h.out);
          n.net.set_t(t + 100);
          push(t + 100, n);
          break;
        }
        t += 200 + (rng() % 8 == 0 ? static_cast<int64_t>(queueing(rng)) : 0);
        n.net.set_port(h.out);
        n.net.set_kind(h.out_kind);
        n.net.set_t(t);
        push(t, n);
        if (i + 1 < path.size()) t += tx(h.rate_out) + prop;
      }
      // Tuples of packets sent up to now are all logged by 1 ms later.
      while (!pending.empty() && pending.top().t < now - 1000000) {
        if (status.ok()) status = writer->WriteText(pending.top().line);
        pending.pop();
        ++written;
      }
    }
    while (!pending.empty() && status.ok()) {
      status = writer->WriteText(pending.top().line);
      pending.pop();
    }
    RP_RETURN_IF_ERROR(status);
    return writer->Close();
  });
}
