#include "lib/hops/pcap.h"

#include <pcap/pcap.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <queue>

#include "lib/base/version.h"
#include "lib/hops/hops.h"
#include "spdlog/spdlog.h"

namespace rp::hops {
namespace {

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtoll(s.c_str(), &end, 10);
  return *end == '\0' && errno != ERANGE;
}

// "10G", "100M", "1500k" or plain bits/s.
bool ParseRate(std::string s, int64_t* out) {
  int64_t scale = 1;
  if (!s.empty()) {
    const char c = s.back();
    if (c == 'k' || c == 'K') scale = 1000;
    if (c == 'm' || c == 'M') scale = 1000000;
    if (c == 'g' || c == 'G') scale = 1000000000;
    if (scale > 1) s.pop_back();
  }
  if (!ParseInt(s, out) || *out <= 0 || *out > INT64_MAX / scale) return false;
  *out *= scale;
  return true;
}

// "DEVICE:PORT" (port required when `need_port`).
bool ParseEnd(const std::string& s, bool need_port, std::string* device, int64_t* port) {
  const size_t colon = s.rfind(':');
  if (colon == std::string::npos) {
    *device = s;
    *port = 0;
    return !need_port && !s.empty();
  }
  *device = s.substr(0, colon);
  return !device->empty() && ParseInt(s.substr(colon + 1), port) && *port >= 0;
}

std::string Dotted(const uint8_t* a) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
  return buf;
}

uint16_t Be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

struct Closer {
  void operator()(pcap_t* p) const { pcap_close(p); }
};

// One capture, read a packet ahead.
struct Source {
  CaptureSpec spec;
  std::unique_ptr<pcap_t, Closer> pcap;
  int linktype = 0;
  int64_t t = 0;  // ns, of the packet ahead
  std::vector<uint8_t> data;
  uint32_t wire = 0;
  bool done = false;
};

Status Advance(Source* s) {
  pcap_pkthdr* header = nullptr;
  const u_char* bytes = nullptr;
  const int rc = pcap_next_ex(s->pcap.get(), &header, &bytes);
  if (rc == PCAP_ERROR_BREAK) {
    s->done = true;
    return OkStatus();
  }
  if (rc != 1) {
    // A capture cut short (tcpdump killed, a full disk): what came before
    // is kept.
    spdlog::warn("{}: {}: the packets before it are kept", s->spec.file,
                 rc == PCAP_ERROR ? pcap_geterr(s->pcap.get()) : "an unreadable packet");
    s->done = true;
    return OkStatus();
  }
  // Nanosecond stamps were asked for at open: tv_usec holds nanoseconds.
  s->t = static_cast<int64_t>(header->ts.tv_sec) * 1000000000 + header->ts.tv_usec;
  s->data.assign(bytes, bytes + header->caplen);
  s->wire = header->len;
  return OkStatus();
}

// Offset of the IPv4 header in a frame of the link type, -1 when the frame
// does not carry IPv4.
int64_t IpOffset(int linktype, const std::vector<uint8_t>& d) {
  switch (linktype) {
    case DLT_EN10MB: {
      if (d.size() < 14) return -1;
      size_t off = 12;
      uint16_t type = Be16(&d[off]);
      while ((type == 0x8100 || type == 0x88a8) && d.size() >= off + 6) {  // VLAN tags
        off += 4;
        type = Be16(&d[off]);
      }
      return type == 0x0800 ? static_cast<int64_t>(off + 2) : -1;
    }
    case DLT_LINUX_SLL:
      return d.size() >= 16 && Be16(&d[14]) == 0x0800 ? 16 : -1;
    case DLT_LINUX_SLL2:
      return d.size() >= 20 && Be16(&d[0]) == 0x0800 ? 20 : -1;
    case DLT_RAW:
    case DLT_IPV4:
      return 0;
    default:
      return -1;
  }
}

}  // namespace

Status ParseCapture(const std::string& text, CaptureSpec* spec) {
  const size_t at = text.find('@');
  const size_t eq = text.find('=', at == std::string::npos ? 0 : at);
  auto bad = [&](const std::string& why) {
    return InputError("capture \"" + text + "\": " + why + " (want KIND[+KIND]@DEVICE[:PORT]=FILE)");
  };
  if (at == std::string::npos || eq == std::string::npos) return bad("no @ or =");
  spec->kinds.clear();
  std::string kinds = text.substr(0, at);
  for (size_t start = 0; start <= kinds.size();) {
    const size_t plus = std::min(kinds.find('+', start), kinds.size());
    const std::string kind = kinds.substr(start, plus - start);
    if (DirectionOf(kind) == Direction::kInvalid) return bad("unknown kind \"" + kind + "\"");
    spec->kinds.push_back(kind);
    start = plus + 1;
  }
  if (!ParseEnd(text.substr(at + 1, eq - at - 1), false, &spec->device, &spec->port)) return bad("bad device or port");
  spec->file = text.substr(eq + 1);
  if (spec->file.empty()) return bad("no file");
  return OkStatus();
}

Status ParseLink(const std::string& text, std::vector<trace::LinkRecord>* out) {
  auto bad = [&](const std::string& why) {
    return InputError("link \"" + text + "\": " + why + " (want DEVICE:PORT=PEER:PORT[,RATE[,DELAY_NS]])");
  };
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return bad("no =");
  std::string rest = text.substr(eq + 1);
  std::string a, b;
  int64_t ap = 0, bp = 0, rate = 0, delay = 0;
  if (!ParseEnd(text.substr(0, eq), true, &a, &ap)) return bad("bad first end");
  const size_t comma = rest.find(',');
  if (!ParseEnd(rest.substr(0, comma), true, &b, &bp)) return bad("bad second end");
  if (comma != std::string::npos) {
    const std::string more = rest.substr(comma + 1);
    const size_t c2 = more.find(',');
    if (!ParseRate(more.substr(0, c2), &rate)) return bad("bad rate");
    if (c2 != std::string::npos && (!ParseInt(more.substr(c2 + 1), &delay) || delay < 0)) return bad("bad delay");
  }
  for (int dir = 0; dir < 2; ++dir) {
    trace::LinkRecord l;
    l.set_device(dir ? b : a);
    l.set_port(dir ? bp : ap);
    l.set_peer(dir ? a : b);
    l.set_peer_port(dir ? ap : bp);
    if (rate > 0) l.set_rate(rate);
    l.set_delay(delay);
    out->push_back(l);
  }
  return OkStatus();
}

Status ReadCaptures(const PcapConfig& config, const std::vector<CaptureSpec>& captures,
                    const std::function<Status(const trace::NetRecord&)>& tuple, PcapCounts* counts) {
  std::vector<Source> sources(captures.size());
  for (size_t i = 0; i < captures.size(); ++i) {
    Source& s = sources[i];
    s.spec = captures[i];
    char err[PCAP_ERRBUF_SIZE] = "";
    s.pcap.reset(pcap_open_offline_with_tstamp_precision(s.spec.file.c_str(), PCAP_TSTAMP_PRECISION_NANO, err));
    if (!s.pcap) {
      // libpcap's message may name the file already.
      const std::string why = err;
      return InputError(why.rfind(s.spec.file + ": ", 0) == 0 ? why : s.spec.file + ": " + why);
    }
    s.linktype = pcap_datalink(s.pcap.get());
    if (s.linktype != DLT_EN10MB && s.linktype != DLT_LINUX_SLL && s.linktype != DLT_LINUX_SLL2 &&
        s.linktype != DLT_RAW && s.linktype != DLT_IPV4) {
      const char* name = pcap_datalink_val_to_name(s.linktype);
      return InputError(s.spec.file + ": link type " + (name ? name : std::to_string(s.linktype)) +
                        " is not Ethernet, Linux cooked or raw IP");
    }
    RP_RETURN_IF_ERROR(Advance(&s));
  }
  // The earliest packet ahead next; ties in capture order.
  auto later = [&](size_t a, size_t b) {
    return sources[a].t != sources[b].t ? sources[a].t > sources[b].t : a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i].done) heap.push(i);
  }
  trace::NetRecord r;
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    Source& s = sources[i];
    ++counts->packets;
    const std::vector<uint8_t>& d = s.data;
    const int64_t ip = IpOffset(s.linktype, d);
    if (ip < 0 || d.size() < static_cast<size_t>(ip) + 20 || (d[ip] >> 4) != 4) {
      if (ip >= 0 && d.size() < static_cast<size_t>(ip) + 20) ++counts->truncated;
      else ++counts->not_ipv4;
    } else if ((d[ip] & 0x0f) < 5) {
      ++counts->truncated;  // a header shorter than IPv4's own: malformed
    } else if (config.dscp < 0 || (d[ip + 1] >> 2) == config.dscp) {
      const size_t ihl = static_cast<size_t>(d[ip] & 0x0f) * 4;
      const size_t total = Be16(&d[ip + 2]);
      const bool first_fragment = (Be16(&d[ip + 6]) & 0x1fff) == 0;
      int64_t id = -1;
      if (config.id == IdField::kIpId) {
        id = Be16(&d[ip + 4]);
      } else if (d[ip + 9] == 17 && first_fragment && total >= ihl + 8 + 4 &&
                 d.size() >= ip + ihl + 8 + 4) {  // UDP payload's first 4 bytes, inside the packet
        const uint8_t* p = &d[ip + ihl + 8];
        id = static_cast<int64_t>(static_cast<uint32_t>(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3]);
      }
      if (id < 0) {
        ++counts->truncated;
      } else {
        ++counts->marked;
        auto name = [&](const uint8_t* a) {
          const std::string dotted = Dotted(a);
          auto it = config.names.find(dotted);
          return it == config.names.end() ? dotted : it->second;
        };
        r.set_device(s.spec.device);
        r.set_port(s.spec.port);
        r.set_src(name(&d[ip + 12]));
        r.set_dst(name(&d[ip + 16]));
        r.set_id(id);
        r.set_size(s.wire);
        r.set_t(s.t);
        for (const std::string& kind : s.spec.kinds) {
          r.set_kind(kind);
          RP_RETURN_IF_ERROR(tuple(r));
        }
      }
    }
    RP_RETURN_IF_ERROR(Advance(&s));
    if (!s.done) heap.push(i);
  }
  return OkStatus();
}

Status WriteCaptures(const PcapConfig& config, const std::vector<trace::LinkRecord>& links,
                     const std::vector<CaptureSpec>& captures, trace::Writer& out) {
  trace::HeaderRecord header;
  header.set_schema(std::string(trace::kSchemaVersion));
  header.set_producer({std::string("rp-pcap ") + kVersion});
  RP_RETURN_IF_ERROR(out.Write(header));
  for (const auto& l : links) RP_RETURN_IF_ERROR(out.Write(l));
  PcapCounts counts;
  RP_RETURN_IF_ERROR(ReadCaptures(
      config, captures, [&](const trace::NetRecord& r) { return out.Write(r); }, &counts));
  RP_RETURN_IF_ERROR(out.Close());
  if (!captures.empty()) spdlog::info("{} packets read, {} marked", counts.packets, counts.marked);
  if (counts.not_ipv4 > 0) spdlog::info("{} packets not IPv4: skipped", counts.not_ipv4);
  if (counts.truncated > 0) spdlog::warn("{} packets cut short before their id: skipped", counts.truncated);
  if (counts.marked == 0 && !captures.empty()) {
    return NothingError(config.dscp < 0 ? std::string("no IPv4 packets in the captures")
                                        : "no marked packets (IPv4 with DSCP " + std::to_string(config.dscp) +
                                              ") in the captures");
  }
  return OkStatus();
}

}  // namespace rp::hops
