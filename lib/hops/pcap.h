// Packet captures (libpcap files, nanosecond or microsecond stamps) turned
// into rp-hops' input: each capture is one device's view of one port in
// one direction (tcpdump -Q in / -Q out), so each marked packet in it is a
// net tuple of the kinds the capture stands for. Marked packets are IPv4
// packets with a given DSCP (the path-synchronous monitoring paper's 1-in-N
// mark, set by the sender); their id is the IPv4 identification field or
// 4 bytes at the start of the UDP payload.
//
// Captures are merged by time (a k-way merge: memory is one packet per
// capture), so the tuples come out in the one clock's order when the
// captures share a clock (interfaces of one kernel), and in each device's
// own order otherwise (rp-hops estimates the offsets).
//
//   CaptureSpec spec;
//   RP_RETURN_IF_ERROR(ParseCapture("switch_in@sw:1=sw-p1.in.pcap", &spec));
#ifndef RP_LIB_HOPS_PCAP_H_
#define RP_LIB_HOPS_PCAP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/record.h"
#include "lib/trace/writer.h"

namespace rp::hops {

struct CaptureSpec {
  std::vector<std::string> kinds;  // host_send, nic_tx, ...: one tuple each
  std::string device;
  int64_t port = 0;
  std::string file;
};

// "KIND[+KIND...]@DEVICE[:PORT]=FILE", e.g. "host_send+nic_tx@h1:0=h1.out.pcap".
Status ParseCapture(const std::string& text, CaptureSpec* spec);

// "DEVICE:PORT=PEER:PORT[,RATE[,DELAY]]": a link, both directions (rate in
// bits/s, a suffix k, M or G allowed; delay in ns).
Status ParseLink(const std::string& text, std::vector<trace::LinkRecord>* out);

enum class IdField { kIpId, kPayload };

struct PcapConfig {
  int dscp = 10;                          // the mark; -1: every IPv4 packet
  IdField id = IdField::kIpId;
  std::map<std::string, std::string> names;  // dotted IPv4 -> host name
};

struct PcapCounts {
  int64_t packets = 0, marked = 0, not_ipv4 = 0, truncated = 0;
};

// Reads the captures, merged by time, calling `tuple` for each marked
// packet and kind. Errors name the file: one missing or unreadable, of a
// link type other than Ethernet, Linux cooked (v1, v2) or raw IP.
Status ReadCaptures(const PcapConfig& config, const std::vector<CaptureSpec>& captures,
                    const std::function<Status(const trace::NetRecord&)>& tuple, PcapCounts* counts);

// The whole conversion: a header (producer rp-pcap), the link records,
// then the tuples of ReadCaptures; closes `out`. Exit status 1
// (NothingError) when captures are given and no packet in them is marked.
Status WriteCaptures(const PcapConfig& config, const std::vector<trace::LinkRecord>& links,
                     const std::vector<CaptureSpec>& captures, trace::Writer& out);

}  // namespace rp::hops

#endif  // RP_LIB_HOPS_PCAP_H_
