// The path-synchronous monitoring paper's incast case study
// (§4) run in ns-3, written as an rp-trace stream for rp-hops: the fabric's
// `link` records, then one `net` tuple per marked packet per device.
//
// A leaf-spine fabric of IP routers joined by point-to-point links; every
// host but the receiver sends UDP to it at a constant rate (the incast),
// while a few other pairs exchange background traffic. Each sending host
// marks one packet in N with a packet tag where its device first sees it
// (the device's MacTx trace: an application's Tx trace fires after the
// packet has gone down the stack, too late to tag it), carrying the
// packet's <src, dst, id>. Devices log the marked packets they see:
//   host_send (MacTx at the sender) and nic_tx (PhyTxBegin), switch_in
//   (MacRx) and switch_out (PhyTxBegin) at leaves and spines, nic_rx and
//   host_recv (MacRx) at the destination, drop (MacTxDrop: the device
//   queue was full).
// Device queues are set explicitly and traffic control is removed, so every
// drop happens in a device queue, where it is traced; with traffic control
// or flow control on, packets would wait or vanish in the queue disc
// unseen.
//
// Ground truth follows from the configuration: a link's delay is
// size * 8 / rate + propagation; spines are never the bottleneck (their
// links are 10x faster than the hosts'), so they queue at most behind the
// packets that arrive with one; the receiver's leaf holds the only small
// queue towards the receiver, so every drop is there and its queueing is at
// most (queue + 1) packets' serialisation. --truth writes what the
// simulator knows (marked packets sent, received and dropped per device,
// clock offsets) for tests to compare rp-hops' answer with.
//
// Built as C++17 (ns-3.37's headers do not compile as C++20), so this
// interface holds no rp types: main.cc turns what it reports into records.
#ifndef RP_CMD_RP_NS3_INCAST_INCAST_H_
#define RP_CMD_RP_NS3_INCAST_INCAST_H_

#include <cstdint>
#include <string>

namespace rp::ns3incast {

struct Spec {
  int leaves = 3, hosts_per_leaf = 4, spines = 2;
  std::string host_rate = "1Gbps", fabric_rate = "10Gbps";
  int64_t host_delay_ns = 1000, fabric_delay_ns = 2000;
  int receiver_queue = 32;  // packets, the receiver's leaf towards the receiver
  int queue = 1000;         // packets, every other device queue
  std::string sender_rate = "200Mbps";
  int payload = 1024;      // UDP bytes
  double seconds = 0.02;   // the senders' on time
  int mark_every = 8;      // 1 in N
  int id_bits = 16;        // ids wrap: they need not be unique
  bool log_drops = true;
  int64_t clock_offset_ns = 0;  // devices' clocks off by up to +-5x this
  uint32_t seed = 1;
};

// What the simulation reports, in the order it happens.
class Sink {
 public:
  virtual ~Sink() = default;
  // One direction of a link: device and port to peer and port.
  virtual void Link(const std::string& device, int port, const std::string& peer, int peer_port, int64_t rate,
                    int64_t delay) = 0;
  // One marked packet seen by a device; t on the device's clock.
  virtual void Tuple(const std::string& device, const char* kind, int port, const std::string& src,
                     const std::string& dst, uint32_t id, uint32_t size, int64_t t) = 0;
};

// Runs the simulation; returns the ground truth as one JSON object.
std::string Run(const Spec& spec, Sink* sink);

}  // namespace rp::ns3incast

#endif  // RP_CMD_RP_NS3_INCAST_INCAST_H_
