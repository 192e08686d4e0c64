#include "cmd/rp-ns3-incast/incast.h"

#include <cstdio>
#include <map>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

namespace rp::ns3incast {
namespace {

using namespace ns3;

// The marked packet's identity, carried from the sending host's device on.
class MarkTag : public Tag {
 public:
  uint32_t src = 0, dst = 0, id = 0;
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("rp::MarkTag").SetParent<Tag>().AddConstructor<MarkTag>();
    return tid;
  }
  TypeId GetInstanceTypeId() const override { return GetTypeId(); }
  uint32_t GetSerializedSize() const override { return 12; }
  void Serialize(TagBuffer b) const override {
    b.WriteU32(src);
    b.WriteU32(dst);
    b.WriteU32(id);
  }
  void Deserialize(TagBuffer b) override {
    src = b.ReadU32();
    dst = b.ReadU32();
    id = b.ReadU32();
  }
  void Print(std::ostream& os) const override { os << src << "->" << dst << " #" << id; }
};

enum class Role { kHost, kSwitch };

// One network device of a node, as rp-hops names it: the node (a device
// in rp's sense) and the port.
struct Port {
  int node;
  int port;
};

class Incast {
 public:
  Incast(const Spec& spec, Sink* out) : spec_(spec), out_(out) {}
  void Run();
  std::string Truth() const;

 private:
  std::string Name(int node) const { return names_[node]; }
  int64_t Now(int node) const { return Simulator::Now().GetNanoSeconds() + offsets_[node]; }
  void Log(int node, const char* kind, int port, const MarkTag& tag, uint32_t size);
  void Connect(Ptr<NetDevice> device, int node, int port);
  void OnMacTx(int node, int port, Ptr<const Packet> p);
  void OnPhyTxBegin(int node, int port, Ptr<const Packet> p);
  void OnMacRx(int node, int port, Ptr<const Packet> p);
  void OnDrop(int node, int port, Ptr<const Packet> p);
  // The link records of a point-to-point link, both directions.
  void WriteLinks(int a, int a_port, int b, int b_port, int64_t rate, int64_t delay);

  Spec spec_;
  Sink* out_;
  std::vector<std::string> names_;
  std::vector<Role> roles_;
  std::vector<int64_t> offsets_;
  std::map<uint32_t, int> host_by_address_;  // IPv4 address -> node
  std::vector<uint64_t> sent_;                // per node: packets its device took
  std::vector<uint32_t> next_id_;
  // Ground truth.
  std::map<int, int64_t> marked_sent_, marked_received_, marked_dropped_, dropped_;
  int64_t tuples_ = 0;
};

void Incast::Log(int node, const char* kind, int port, const MarkTag& tag, uint32_t size) {
  ++tuples_;
  out_->Tuple(Name(node), kind, port, Name(static_cast<int>(tag.src)), Name(static_cast<int>(tag.dst)), tag.id, size,
              Now(node));
}

// MacTx at a host: the packet from the IP layer, with the device's PPP
// header (ns-3.37 fires it after adding it), before it is queued. Here the
// sender marks it. Sizes are on the wire, PPP header included, everywhere.
void Incast::OnMacTx(int node, int port, Ptr<const Packet> p) {
  if (roles_[node] != Role::kHost) return;
  // One in N by a hash of the host and its packet count: a fixed stride
  // would alias with flows that interleave periodically and mark one only.
  uint64_t h = (static_cast<uint64_t>(node) << 40) + sent_[node]++ + spec_.seed * 0x9e3779b97f4a7c15ULL;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  h ^= h >> 31;
  if (h % static_cast<uint64_t>(spec_.mark_every) != 0) return;
  // The device has put its PPP header on already.
  Ptr<Packet> copy = p->Copy();
  PppHeader ppp;
  Ipv4Header ip;
  if (copy->RemoveHeader(ppp) == 0 || copy->PeekHeader(ip) == 0) return;
  const auto dst = host_by_address_.find(ip.GetDestination().Get());
  if (dst == host_by_address_.end()) return;
  MarkTag tag;
  tag.src = static_cast<uint32_t>(node);
  tag.dst = static_cast<uint32_t>(dst->second);
  tag.id = next_id_[node]++ & ((1u << spec_.id_bits) - 1);
  ConstCast<Packet>(p)->AddPacketTag(tag);
  ++marked_sent_[node];
  Log(node, "host_send", port, tag, p->GetSize());
}

// PhyTxBegin: the first bit goes on the wire; the link delivers it
// size * 8 / rate + propagation later.
void Incast::OnPhyTxBegin(int node, int port, Ptr<const Packet> p) {
  MarkTag tag;
  if (!p->PeekPacketTag(tag)) return;
  Log(node, roles_[node] == Role::kHost ? "nic_tx" : "switch_out", port, tag, p->GetSize());
}

// MacRx: the last bit has arrived.
void Incast::OnMacRx(int node, int port, Ptr<const Packet> p) {
  MarkTag tag;
  if (!p->PeekPacketTag(tag)) return;
  if (roles_[node] == Role::kSwitch) {
    Log(node, "switch_in", port, tag, p->GetSize());
    return;
  }
  Log(node, "nic_rx", port, tag, p->GetSize());
  // ns-3's stack takes no time: the host has it at once.
  Log(node, "host_recv", port, tag, p->GetSize());
  ++marked_received_[static_cast<int>(tag.src)];
}

// MacTxDrop: the device queue was full.
void Incast::OnDrop(int node, int port, Ptr<const Packet> p) {
  ++dropped_[node];
  MarkTag tag;
  if (!p->PeekPacketTag(tag)) return;
  ++marked_dropped_[node];
  if (spec_.log_drops) Log(node, "drop", port, tag, p->GetSize());
}

void Incast::Connect(Ptr<NetDevice> device, int node, int port) {
  device->TraceConnectWithoutContext("MacTx", MakeCallback(&Incast::OnMacTx, this).Bind(node, port));
  device->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Incast::OnPhyTxBegin, this).Bind(node, port));
  device->TraceConnectWithoutContext("MacRx", MakeCallback(&Incast::OnMacRx, this).Bind(node, port));
  device->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&Incast::OnDrop, this).Bind(node, port));
}

void Incast::WriteLinks(int a, int a_port, int b, int b_port, int64_t rate, int64_t delay) {
  out_->Link(Name(a), a_port, Name(b), b_port, rate, delay);
  out_->Link(Name(b), b_port, Name(a), a_port, rate, delay);
}

void Incast::Run() {
  RngSeedManager::SetSeed(spec_.seed);
  Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));
  const int hosts = spec_.leaves * spec_.hosts_per_leaf;
  NodeContainer host_nodes, leaf_nodes, spine_nodes;
  host_nodes.Create(hosts);
  leaf_nodes.Create(spec_.leaves);
  spine_nodes.Create(spec_.spines);
  // Node numbers: hosts, then leaves, then spines.
  for (int h = 0; h < hosts; ++h) names_.push_back("h" + std::to_string(h)), roles_.push_back(Role::kHost);
  for (int l = 0; l < spec_.leaves; ++l) names_.push_back("leaf" + std::to_string(l)), roles_.push_back(Role::kSwitch);
  for (int s = 0; s < spec_.spines; ++s) names_.push_back("spine" + std::to_string(s)), roles_.push_back(Role::kSwitch);
  const int nodes = static_cast<int>(names_.size());
  auto node_of_leaf = [&](int l) { return hosts + l; };
  auto node_of_spine = [&](int s) { return hosts + spec_.leaves + s; };
  offsets_.assign(nodes, 0);
  for (int n = 0; n < nodes; ++n) offsets_[n] = ((n * 7919) % 11 - 5) * spec_.clock_offset_ns;
  sent_.assign(nodes, 0);
  next_id_.assign(nodes, 0);

  InternetStackHelper stack;
  stack.Install(host_nodes);
  stack.Install(leaf_nodes);
  stack.Install(spine_nodes);
  const DataRate host_rate(spec_.host_rate), fabric_rate(spec_.fabric_rate);
  Ipv4AddressHelper address;
  std::vector<Ipv4Address> host_address(hosts);
  struct Attach {
    Ptr<NetDevice> device;
    int node, port;
  };
  std::vector<Attach> attached;
  int subnet = 0;
  // Links a's port to b's; returns their devices' addresses.
  auto join = [&](const DataRate& rate, int64_t delay, int an, int ap, int bn, int bp, int b_queue) {
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(delay)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, static_cast<uint32_t>(spec_.queue))));
    p2p.DisableFlowControl();
    NetDeviceContainer d = p2p.Install(NodeList::GetNode(an), NodeList::GetNode(bn));
    d.Get(1)->GetObject<PointToPointNetDevice>()->GetQueue()->SetMaxSize(
        QueueSize(QueueSizeUnit::PACKETS, static_cast<uint32_t>(b_queue)));
    WriteLinks(an, ap, bn, bp, static_cast<int64_t>(rate.GetBitRate()), delay);
    char base[32];
    std::snprintf(base, sizeof base, "10.%d.%d.0", subnet / 256, subnet % 256);
    ++subnet;
    address.SetBase(base, "255.255.255.0");
    Ipv4InterfaceContainer ifs = address.Assign(d);
    // No queue disc: drops happen, traced, in the device queue.
    for (uint32_t i = 0; i < d.GetN(); ++i) {
      Ptr<TrafficControlLayer> layer = d.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
      if (layer && layer->GetRootQueueDiscOnDevice(d.Get(i))) layer->DeleteRootQueueDiscOnDevice(d.Get(i));
    }
    attached.push_back({d.Get(0), an, ap});
    attached.push_back({d.Get(1), bn, bp});
    return ifs;
  };
  for (int l = 0; l < spec_.leaves; ++l) {
    for (int i = 0; i < spec_.hosts_per_leaf; ++i) {
      const int h = l * spec_.hosts_per_leaf + i;
      // The receiver's leaf has the small queue towards the receiver.
      Ipv4InterfaceContainer ifs = join(host_rate, spec_.host_delay_ns, h, 0, node_of_leaf(l), i,
                                        h == 0 ? spec_.receiver_queue : spec_.queue);
      host_address[h] = ifs.GetAddress(0);
      host_by_address_[ifs.GetAddress(0).Get()] = h;
    }
  }
  for (int l = 0; l < spec_.leaves; ++l) {
    for (int s = 0; s < spec_.spines; ++s) {
      join(fabric_rate, spec_.fabric_delay_ns, node_of_leaf(l), spec_.hosts_per_leaf + s, node_of_spine(s), l,
           spec_.queue);
    }
  }
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();
  for (const Attach& a : attached) Connect(a.device, a.node, a.port);

  // Sinks everywhere traffic goes, so no ICMP answers flow back.
  const uint16_t port = 9;
  PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
  sink.Install(host_nodes).Start(Seconds(0));
  auto send = [&](int from, int to, const std::string& rate, double start) {
    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(host_address[to], port));
    onoff.SetConstantRate(DataRate(rate), static_cast<uint32_t>(spec_.payload));
    ApplicationContainer app = onoff.Install(host_nodes.Get(from));
    app.Start(Seconds(start));
    app.Stop(Seconds(start + spec_.seconds));
  };
  // The incast: everyone to h0, started a few microseconds apart.
  for (int h = 1; h < hosts; ++h) send(h, 0, spec_.sender_rate, 0.001 + 3e-6 * h);
  // Background: between hosts of other leaves, away from the receiver.
  if (spec_.leaves >= 3 && spec_.hosts_per_leaf >= 2) {
    send(spec_.hosts_per_leaf, 2 * spec_.hosts_per_leaf, "300Mbps", 0.001);
    send(2 * spec_.hosts_per_leaf + 1, spec_.hosts_per_leaf + 1, "300Mbps", 0.0012);
  }
  Simulator::Stop(Seconds(0.002 + spec_.seconds + 0.01));
  Simulator::Run();
  Simulator::Destroy();
}

std::string Incast::Truth() const {
  auto by_name = [&](const std::map<int, int64_t>& m) {
    std::string s = "{";
    for (const auto& [node, n] : m) s += (s.size() > 1 ? "," : "") + ("\"" + Name(node) + "\":" + std::to_string(n));
    return s + "}";
  };
  std::map<int, int64_t> offsets;
  for (size_t n = 0; n < offsets_.size(); ++n) offsets[static_cast<int>(n)] = offsets_[n];
  const DataRate host_rate(spec_.host_rate), fabric_rate(spec_.fabric_rate);
  const int64_t wire = spec_.payload + 8 + 20 + 2;  // UDP, IPv4, PPP headers
  std::string s = "{";
  s += "\"receiver\":\"h0\",\"receiver_leaf\":\"leaf0\",\"receiver_queue\":" + std::to_string(spec_.receiver_queue);
  s += ",\"wire_bytes\":" + std::to_string(wire);
  s += ",\"host_serialisation_ns\":" + std::to_string(host_rate.CalculateBytesTxTime(wire).GetNanoSeconds());
  s += ",\"fabric_serialisation_ns\":" + std::to_string(fabric_rate.CalculateBytesTxTime(wire).GetNanoSeconds());
  s += ",\"leaves\":" + std::to_string(spec_.leaves) + ",\"spines\":" + std::to_string(spec_.spines);
  s += ",\"tuples\":" + std::to_string(tuples_);
  s += ",\"marked_sent\":" + by_name(marked_sent_);
  s += ",\"marked_received\":" + by_name(marked_received_);
  s += ",\"marked_dropped\":" + by_name(marked_dropped_);
  s += ",\"dropped\":" + by_name(dropped_);
  s += ",\"offsets\":" + by_name(offsets);
  return s + "}\n";
}

}  // namespace

std::string Run(const Spec& spec, Sink* sink) {
  Incast incast(spec, sink);
  incast.Run();
  return incast.Truth();
}

}  // namespace rp::ns3incast
