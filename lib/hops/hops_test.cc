#include "lib/hops/hops.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rp::hops {
namespace {

// h0 -> s0 -> s1 -> h1, 1 Gb/s links of 1 us: a 1000-byte packet takes
// 9 us on each.
Topology Line() {
  Topology t;
  const char* chain[] = {"h0", "s0", "s1", "h1"};
  for (int i = 0; i + 1 < 4; ++i) {
    trace::LinkRecord l;
    l.set_rate(1000000000);
    l.set_delay(1000);
    l.set_device(chain[i]);
    l.set_port(1);
    l.set_peer(chain[i + 1]);
    l.set_peer_port(0);
    t.Add(l);
    l.set_device(chain[i + 1]);
    l.set_port(0);
    l.set_peer(chain[i]);
    l.set_peer_port(1);
    t.Add(l);
  }
  return t;
}

trace::NetRecord Tuple(const char* device, const char* kind, int port, int64_t t, int64_t id = 5) {
  trace::NetRecord r;
  r.set_device(device);
  r.set_kind(kind);
  r.set_port(port);
  r.set_src("h0");
  r.set_dst("h1");
  r.set_id(id);
  r.set_size(1000);
  r.set_t(t);
  return r;
}

std::vector<Path> Match(Topology& topology, const std::vector<trace::NetRecord>& tuples) {
  std::vector<Path> out;
  Config c;
  c.window = 100000;
  Matcher m(&topology, c, [&](Path&& p) { out.push_back(std::move(p)); });
  for (const auto& r : tuples) m.Add(r);
  m.Finish();
  return out;
}

// s1's clock is 20 us behind: its tuples are logged before s0's departure
// (in time order), yet the path is one, its link into s1 -11 us.
TEST(Matcher, ArrivalLoggedBeforeTheDepartureJoins) {
  Topology t = Line();
  const auto paths = Match(t, {Tuple("h0", "host_send", 1, 0), Tuple("h0", "nic_tx", 1, 100),
                               Tuple("s0", "switch_in", 0, 9100), Tuple("s1", "switch_in", 0, 1100),
                               Tuple("s1", "switch_out", 1, 1600), Tuple("s0", "switch_out", 1, 12100),
                               Tuple("h1", "nic_rx", 0, 30600), Tuple("h1", "host_recv", 0, 30700)});
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_STREQ(paths[0].Status(), "complete");
  ASSERT_EQ(paths[0].hops.size(), 4u);
  EXPECT_EQ(paths[0].hops[2].link_ns, 1100 - 12100);
  EXPECT_EQ(paths[0].hops[3].link_ns, 29000);
}

// s0 logged nothing: one path, s0 a hop without times, a gap.
TEST(Matcher, ASilentDeviceIsAHopWithoutTimes) {
  Topology t = Line();
  const auto paths = Match(t, {Tuple("h0", "host_send", 1, 0), Tuple("h0", "nic_tx", 1, 100),
                               Tuple("s1", "switch_in", 0, 21100), Tuple("s1", "switch_out", 1, 21200),
                               Tuple("h1", "nic_rx", 0, 30200), Tuple("h1", "host_recv", 0, 30300)});
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_STREQ(paths[0].Status(), "gap");
  ASSERT_EQ(paths[0].hops.size(), 4u);
  EXPECT_EQ(t.Name(paths[0].hops[1].device), "s0");
  EXPECT_EQ(paths[0].hops[1].arrive, -1);
  EXPECT_EQ(paths[0].hops[2].link_ns, -1);
  EXPECT_EQ(paths[0].hops[3].link_ns, 9000);
}

// A packet at s1 132 us after it was due there (beyond the 100 us window)
// is not the one that left for the silent s0.
TEST(Matcher, FarFromDueBeyondASilentDeviceIsNotJoined) {
  Topology t = Line();
  const auto paths = Match(t, {Tuple("h0", "host_send", 1, 0), Tuple("h0", "nic_tx", 1, 100),
                               Tuple("s1", "switch_in", 0, 150000), Tuple("s1", "switch_out", 1, 150100)});
  EXPECT_EQ(paths.size(), 2u);
}

// The same id again after the window is another packet.
TEST(Matcher, AReusedIdIsAnotherPacket) {
  Topology t = Line();
  std::vector<trace::NetRecord> tuples;
  for (int64_t base : {0, 500000}) {
    for (const auto& r : {Tuple("h0", "host_send", 1, base), Tuple("h0", "nic_tx", 1, base + 100),
                          Tuple("s0", "switch_in", 0, base + 9100), Tuple("s0", "switch_out", 1, base + 9200),
                          Tuple("s1", "switch_in", 0, base + 18200), Tuple("s1", "switch_out", 1, base + 18300),
                          Tuple("h1", "nic_rx", 0, base + 27300), Tuple("h1", "host_recv", 0, base + 27400)}) {
      tuples.push_back(r);
    }
  }
  const auto paths = Match(t, tuples);
  ASSERT_EQ(paths.size(), 2u);
  for (const Path& p : paths) {
    EXPECT_STREQ(p.Status(), "complete");
    EXPECT_EQ(p.hops.back().depart - p.hops.front().arrive, 27400);
  }
}

}  // namespace
}  // namespace rp::hops
