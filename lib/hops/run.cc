#include "lib/hops/run.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "lib/base/version.h"
#include "lib/hops/hops.h"
#include "spdlog/spdlog.h"

namespace rp::hops {
namespace {

// Delays for percentiles: exact up to 4,096 values, then in buckets 1%
// apart, so memory stays bounded on any log.
class Delays {
 public:
  void Add(int64_t ns) {
    ++count_;
    total_ += ns;
    most_ = std::max(most_, ns);
    if (buckets_.empty() && exact_.size() < 4096) {
      exact_.push_back(ns);
      return;
    }
    for (int64_t x : exact_) ++buckets_[Bucket(x)];
    exact_.clear();
    exact_.shrink_to_fit();
    ++buckets_[Bucket(ns)];
  }
  int64_t count() const { return count_; }
  int64_t total() const { return total_; }
  int64_t max() const { return count_ ? most_ : 0; }
  // The q-quantile (nearest rank).
  int64_t Quantile(double q) {
    if (count_ == 0) return 0;
    const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(q * static_cast<double>(count_))));
    if (buckets_.empty()) {
      std::nth_element(exact_.begin(), exact_.begin() + (rank - 1), exact_.end());
      return exact_[rank - 1];
    }
    int64_t seen = 0;
    for (const auto& [b, n] : buckets_) {
      seen += n;
      if (seen >= rank) return std::min(most_, Value(b));
    }
    return most_;
  }

 private:
  // Buckets 1% apart by magnitude; negative delays (clocks off by more
  // than a link's delay) in mirrored negative buckets.
  static int32_t Bucket(int64_t ns) {
    if (ns < 0) return -1 - Bucket(-ns);
    return ns <= 1 ? 0 : static_cast<int32_t>(std::ceil(std::log(static_cast<double>(ns)) / std::log(1.01)));
  }
  static int64_t Value(int32_t b) {
    return b < 0 ? -Value(-1 - b) : static_cast<int64_t>(std::llround(std::pow(1.01, b)));
  }
  std::vector<int64_t> exact_;
  std::map<int32_t, int64_t> buckets_;
  int64_t count_ = 0, total_ = 0, most_ = INT64_MIN;
};

struct DeviceFigures {
  Delays delays;
  int64_t packets = 0, drops = 0, on_complete = 0;
};
struct SenderFigures {
  Delays latency;  // of complete paths
  int64_t packets = 0, drops = 0;
  struct Device {
    int32_t device;
    double positions = 0;  // summed hop positions, for the path order
    int64_t ns = 0, seen = 0;
  };
  std::vector<Device> devices;  // a sender's paths pass few devices
  Device& Of(int32_t device) {
    for (Device& d : devices) {
      if (d.device == device) return d;
    }
    return devices.emplace_back(Device{device});
  }
};

class Summary {
 public:
  explicit Summary(const Topology& topology, const Matcher& matcher) : topology_(topology), matcher_(matcher) {}

  void Add(const Path& p) {
    const bool complete = std::string_view(p.Status()) == "complete";
    if (static_cast<size_t>(p.src) >= senders_.size()) senders_.resize(p.src + 1);
    SenderFigures& s = senders_[p.src];
    ++s.packets;
    if (p.dropped) ++s.drops;
    if (devices_.size() < topology_.size()) devices_.resize(topology_.size());
    for (size_t i = 0; i < p.hops.size(); ++i) {
      const Hop& h = p.hops[i];
      DeviceFigures& d = devices_[h.device];
      ++d.packets;
      if (p.dropped && i + 1 == p.hops.size()) ++d.drops;
      if (h.arrive >= 0 && h.depart >= 0) {
        d.delays.Add(h.depart - h.arrive);
        if (complete) d.on_complete += h.depart - h.arrive;
      }
      if (i > 0 && h.arrive >= 0 && p.hops[i - 1].depart >= 0) {
        const Hop& before = p.hops[i - 1];
        DeviceFigures& l = links_[{before.device, before.out_port}];
        ++l.packets;
        l.delays.Add(h.link_ns);
        if (complete) l.on_complete += h.link_ns;
      }
      if (complete) {
        SenderFigures::Device& sd = s.Of(h.device);
        sd.positions += static_cast<double>(i);
        ++sd.seen;
        sd.ns += (h.depart - h.arrive) + (i > 0 ? h.link_ns : 0);
      }
    }
    if (complete) {
      const int64_t latency = p.hops.back().depart - p.hops.front().arrive;
      s.latency.Add(latency);
      run_.latency.Add(latency);
    }
    ++run_.packets;
    if (p.dropped) ++run_.drops;
  }

  Status Write(const std::vector<int64_t>& offsets, trace::Writer& out) {
    const double all = static_cast<double>(run_.latency.total());
    std::vector<int32_t> order;
    for (size_t device = 0; device < devices_.size(); ++device) {
      if (devices_[device].packets > 0) order.push_back(static_cast<int32_t>(device));
    }
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return topology_.Name(a) < topology_.Name(b); });
    for (int32_t device : order) {
      DeviceFigures& f = devices_[device];
      trace::HopSummaryRecord r;
      r.set_kind("device");
      r.set_device(topology_.Name(device));
      Fill(f, all, &r);
      if (static_cast<size_t>(device) < offsets.size()) r.set_offset(offsets[device]);
      RP_RETURN_IF_ERROR(out.Write(r));
    }
    std::vector<std::pair<int32_t, int64_t>> links;
    for (const auto& [key, f] : links_) links.push_back(key);
    std::sort(links.begin(), links.end(), [&](const auto& a, const auto& b) {
      return std::make_pair(topology_.Name(a.first), a.second) < std::make_pair(topology_.Name(b.first), b.second);
    });
    for (const auto& key : links) {
      DeviceFigures& f = links_[key];
      trace::HopSummaryRecord r;
      r.set_kind("link");
      r.set_device(topology_.Name(key.first));
      r.set_port(key.second);
      if (const Link* l = topology_.From(key.first, key.second)) r.set_peer(topology_.Name(l->peer));
      Fill(f, all, &r);
      r.clear_drops();
      RP_RETURN_IF_ERROR(out.Write(r));
    }
    std::vector<int32_t> senders;
    for (size_t host = 0; host < senders_.size(); ++host) {
      if (senders_[host].packets > 0) senders.push_back(static_cast<int32_t>(host));
    }
    std::sort(senders.begin(), senders.end(),
              [&](int32_t a, int32_t b) { return matcher_.Host(a) < matcher_.Host(b); });
    for (int32_t host : senders) {
      SenderFigures& s = senders_[host];
      trace::HopSummaryRecord r;
      r.set_kind("sender");
      r.set_sender(matcher_.Host(host));
      r.set_packets(s.packets);
      r.set_drops(s.drops);
      r.set_complete(s.latency.count());
      Quantiles(s.latency, &r);
      // Devices in path order: by their mean position on the paths.
      std::vector<std::pair<double, int32_t>> by_position;
      std::map<int32_t, int64_t> ns;
      for (const SenderFigures::Device& d : s.devices) {
        by_position.emplace_back(d.positions / static_cast<double>(d.seen), d.device);
        ns[d.device] = d.ns;
      }
      std::sort(by_position.begin(), by_position.end(), [&](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : topology_.Name(a.second) < topology_.Name(b.second);
      });
      std::vector<std::string> names;
      std::vector<int64_t> totals;
      for (const auto& [position, device] : by_position) {
        names.push_back(topology_.Name(device));
        totals.push_back(ns[device]);
      }
      r.set_devices(names);
      r.set_device_total(totals);
      RP_RETURN_IF_ERROR(out.Write(r));
    }
    const Counts& c = matcher_.counts();
    trace::HopSummaryRecord r;
    r.set_kind("run");
    r.set_packets(run_.packets);
    r.set_drops(run_.drops);
    Quantiles(run_.latency, &r);
    r.set_complete(c.complete);
    r.set_gaps(c.gaps);
    r.set_loops(c.loops);
    r.set_duplicates(c.duplicates);
    r.set_unknown(c.unknown);
    r.set_no_link(c.no_link);
    r.set_backwards(c.backwards);
    r.set_one_hop(c.one_hop);
    r.set_late(c.late);
    return out.Write(r);
  }

 private:
  static void Quantiles(Delays& d, trace::HopSummaryRecord* r) {
    if (d.count() == 0) return;
    r->set_p50(d.Quantile(0.50));
    r->set_p90(d.Quantile(0.90));
    r->set_p99(d.Quantile(0.99));
    r->set_max(d.max());
    r->set_total(d.total());
  }
  static void Fill(DeviceFigures& f, double all, trace::HopSummaryRecord* r) {
    r->set_packets(f.packets);
    r->set_drops(f.drops);
    Quantiles(f.delays, r);
    r->set_total(f.on_complete);  // the complete paths' share, not every packet's
    if (all > 0) r->set_share(static_cast<double>(f.on_complete) / all);
  }

  const Topology& topology_;
  const Matcher& matcher_;
  std::vector<DeviceFigures> devices_;                       // by device index
  std::map<std::pair<int32_t, int64_t>, DeviceFigures> links_;  // by (device, port)
  std::vector<SenderFigures> senders_;                        // by host index
  SenderFigures run_;
};

// One packet's record, written into *r (reused: its vectors and strings
// keep their capacity from packet to packet).
void FillRecord(const Path& p, const Topology& topology, const Matcher& matcher, trace::HopPathRecord* r) {
  r->Clear();
  r->set_src(matcher.Host(p.src));
  r->set_dst(matcher.Host(p.dst));
  r->set_id(p.id);
  if (p.size >= 0) r->set_size(p.size);
  r->set_status(p.Status());
  const size_t n = p.hops.size();
  auto& devices = r->mutable_devices();
  auto& arrive = r->mutable_arrive();
  auto& depart = r->mutable_depart();
  auto& link_ns = r->mutable_link_ns();
  auto& device_ns = r->mutable_device_ns();
  devices.resize(n);
  arrive.resize(n);
  depart.resize(n);
  link_ns.resize(n);
  device_ns.resize(n);
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (size_t i = 0; i < n; ++i) {
    const Hop& h = p.hops[i];
    devices[i] = topology.Name(h.device);
    arrive[i] = h.arrive;
    depart[i] = h.depart;
    link_ns[i] = h.link_ns;
    device_ns[i] = h.arrive >= 0 && h.depart >= 0 ? h.depart - h.arrive : 0;
    for (int64_t t : {h.arrive, h.depart}) {
      if (t < 0) continue;
      first = std::min(first, t);
      last = std::max(last, t);
    }
  }
  if (first <= last) r->set_latency(last - first);
  if (p.dropped) r->set_dropped_at(topology.Name(p.hops.back().device));
  if (p.rank) r->set_rank(*p.rank);
  if (p.site) r->set_site(*p.site);
  if (p.seq) r->set_seq(*p.seq);
}

}  // namespace

Status Run(const RunConfig& config, trace::InputSet& input, trace::Writer& out) {
  Topology topology;
  std::vector<trace::NetRecord> early;  // the tuples that calibrate the clocks
  trace::Record rec;
  bool header_written = false;
  int64_t conflicting = 0;
  auto header = [&](const trace::HeaderRecord* h) -> Status {
    if (header_written) return OkStatus();
    header_written = true;
    trace::HeaderRecord mine;
    if (h != nullptr) mine = *h;
    else mine.set_schema(std::string(trace::kSchemaVersion));
    std::vector<std::string> producers = h != nullptr ? h->producer : std::vector<std::string>{};
    producers.push_back(std::string("rp-hops ") + kVersion);
    mine.set_producer(producers);
    return out.Write(mine);
  };
  // Links first (a topology converted to link records leads the stream);
  // net tuples are read after the first ones that calibrate the clocks.
  std::unique_ptr<Matcher> matcher;
  std::unique_ptr<Summary> summary;
  std::vector<int64_t> offsets;
  Status failed = OkStatus();
  trace::HopPathRecord record;
  auto done = [&](Path&& p) {
    summary->Add(p);
    if (config.paths && failed.ok()) {
      FillRecord(p, topology, *matcher, &record);
      failed = out.Write(record);
    }
  };
  auto start = [&]() {
    if (matcher) return;
    if (config.calibrate > 0 && !early.empty()) {
      std::vector<Path> paths;
      Config wide;
      wide.window = 10 * config.window;
      Matcher calibration(&topology, wide, [&](Path&& p) { paths.push_back(std::move(p)); });
      for (const trace::NetRecord& r : early) calibration.Add(r);
      calibration.Finish();
      offsets = EstimateOffsets(topology, paths);
    }
    Config c;
    c.window = config.window;
    c.offsets = offsets;
    matcher = std::make_unique<Matcher>(&topology, c, done);
    summary = std::make_unique<Summary>(topology, *matcher);
    for (const trace::NetRecord& r : early) matcher->Add(r);
    early.clear();
    early.shrink_to_fit();
  };
  int64_t tuples = 0;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, input.Next(&rec));
    if (!more) break;
    switch (rec.type) {
      case trace::RecordType::kHeader:
        RP_RETURN_IF_ERROR(header(&rec.header));
        break;
      case trace::RecordType::kLink:
        RP_RETURN_IF_ERROR(header(nullptr));
        if (matcher) {
          spdlog::warn("{}: a link record after the net records began: ignored (put the topology first)",
                       input.where());
          break;
        }
        if (!topology.Add(rec.link)) ++conflicting;
        RP_RETURN_IF_ERROR(out.WriteRaw(rec.line));
        break;
      case trace::RecordType::kNet:
        RP_RETURN_IF_ERROR(header(nullptr));
        ++tuples;
        if (!matcher && static_cast<int64_t>(early.size()) < config.calibrate) {
          early.push_back(rec.net);
          break;
        }
        start();
        matcher->Add(rec.net);
        RP_RETURN_IF_ERROR(failed);
        break;
      default:
        break;  // other records are not the network's
    }
  }
  RP_RETURN_IF_ERROR(header(nullptr));
  if (conflicting > 0) {
    spdlog::warn("{} link records name a port already linked to another peer: the first kept", conflicting);
  }
  start();
  matcher->Finish();
  RP_RETURN_IF_ERROR(failed);
  RP_RETURN_IF_ERROR(summary->Write(offsets, out));
  const Counts& c = matcher->counts();
  if (c.unknown > 0) spdlog::warn("{} tuples of devices no link record names, of unknown kinds or with times no clock gives "
                 "(negative, or beyond 2^62 ns): skipped", c.unknown);
  if (c.no_link > 0) spdlog::warn("{} packets left by a port without a link record: their paths end there", c.no_link);
  if (c.late > 0) {
    spdlog::warn("{} packets left a device up to {} ns after arriving, longer than the window ({} ns): each was "
                 "taken for a drop and a new packet; rerun with --window {} or more",
                 c.late, c.longest_late, config.window, 2 * c.longest_late);
  }
  if (c.duplicates > 0) spdlog::info("{} tuples logged twice: counted once", c.duplicates);
  if (c.backwards > 0) {
    spdlog::warn("{} tuples came later than the window ({} ns) allows: matched as they came (raise --window)",
                 c.backwards, config.window);
  }
  RP_RETURN_IF_ERROR(out.Close());
  if (tuples == 0) return NothingError("the stream has no net records: no packets to follow");
  return OkStatus();
}

}  // namespace rp::hops
