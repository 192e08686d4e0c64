#include "lib/match/match.h"

#include <gtest/gtest.h>

#include "lib/window/testing.h"

namespace rp::match {
namespace {

using window::ReadOneWindow;
using window::TestHeader;
using window::TestMpi;

// Messages as (send seq@rank, recv-done seq@rank) strings, for readable checks.
std::vector<std::string> Pairs(const window::TestTrace& t, const Matching& m) {
  std::vector<std::string> out;
  auto name = [&](uint32_t e) {
    if (e == kNoEvent) return std::string("-");
    const window::Event& ev = t.window.events[e];
    return std::to_string(ev.rank) + ":" + std::to_string(ev.seq);
  };
  for (const Message& msg : m.messages) {
    out.push_back(name(msg.send) + ">" + name(msg.send_done) + " " + name(msg.recv) + ">" + name(msg.recv_done));
  }
  return out;
}

TEST(Match, BlockingAndNonblockingInOrderPerKey) {
  // Two messages 0 -> 1 with tag 5 (FIFO), one with tag 6 received first.
  const auto t = ReadOneWindow(
      TestHeader(2) + TestMpi(0, 0, "MPI_Isend", 1, 2, R"(,"peer":1,"tag":5,"bytes":8,"req":0)") +
      TestMpi(0, 1, "MPI_Send", 3, 4, R"(,"peer":1,"tag":6,"bytes":8)") +
      TestMpi(0, 2, "MPI_Send", 5, 6, R"(,"peer":1,"tag":5,"bytes":16)") +
      TestMpi(0, 3, "MPI_Wait", 7, 8, R"(,"completed":[0])") +
      TestMpi(1, 0, "MPI_Recv", 1, 9, R"(,"peer":0,"tag":6,"bytes":8)") +
      TestMpi(1, 1, "MPI_Irecv", 10, 11, R"(,"peer":0,"tag":5,"bytes":8,"req":0)") +
      TestMpi(1, 2, "MPI_Recv", 12, 13, R"(,"peer":0,"tag":5,"bytes":16)") +
      TestMpi(1, 3, "MPI_Wait", 14, 15, R"(,"completed":[0])"));
  const Matching m = Match(t.window, t.dict);
  EXPECT_EQ(Pairs(t, m), (std::vector<std::string>{"0:0>0:3 1:1>1:3", "0:1>0:1 1:0>1:0", "0:2>0:2 1:2>1:2"}));
  EXPECT_EQ(m.unmatched_sends + m.unmatched_receives + m.unresolved_receives, 0);
}

// Unmatched operations of each kind, counted per key and reported in key
// order: keys with sends first (surplus sends one example each), then keys
// only receives have.
TEST(Match, UnmatchedSendsAndReceivesPerKey) {
  const auto t = ReadOneWindow(
      TestHeader(3) + TestMpi(0, 0, "MPI_Send", 1, 2, R"(,"peer":1,"tag":1,"bytes":8)") +
      TestMpi(0, 1, "MPI_Send", 3, 4, R"(,"peer":1,"tag":1,"bytes":8)") +
      TestMpi(0, 2, "MPI_Send", 5, 6, R"(,"peer":1,"tag":3,"bytes":8)") +
      TestMpi(1, 0, "MPI_Recv", 1, 7, R"(,"peer":0,"tag":3,"bytes":8)") +
      TestMpi(1, 1, "MPI_Recv", 8, 9, R"(,"peer":0,"tag":1,"bytes":8)") +
      TestMpi(1, 2, "MPI_Recv", 10, 11, R"(,"peer":0,"tag":3,"bytes":8)") +
      TestMpi(1, 3, "MPI_Recv", 12, 13, R"(,"peer":0,"tag":3,"bytes":8)") +
      TestMpi(2, 0, "MPI_Recv", 1, 2, R"(,"peer":0,"tag":0,"bytes":8)") +
      TestMpi(1, 4, "MPI_Recv", 14, 15, R"(,"peer":2,"tag":9,"bytes":8)"));
  const Matching m = Match(t.window, t.dict);
  EXPECT_EQ(Pairs(t, m), (std::vector<std::string>{"0:0>0:0 1:1>1:1", "0:2>0:2 1:0>1:0"}));
  EXPECT_EQ(m.unmatched_sends, 1);
  EXPECT_EQ(m.unmatched_receives, 4);
  EXPECT_EQ(m.examples, (std::vector<std::string>{"send without receive: comm 0, 0 -> 1, tag 1",
                                                  "receive without send: comm 0, 0 -> 1, tag 3",
                                                  "receive without send: comm 0, 0 -> 2, tag 0",
                                                  "receive without send: comm 0, 2 -> 1, tag 9"}));
}

// Request handles are any int64 a producer chose: ids beyond 32 bits (which
// once were cut to their low bits, so 2^40 completed request 0) match too.
TEST(Match, RequestIdsBeyond32Bits) {
  const auto t = ReadOneWindow(
      TestHeader(2) + TestMpi(0, 0, "MPI_Isend", 1, 2, R"(,"peer":1,"tag":5,"bytes":8,"req":1099511627776)") +
      TestMpi(0, 1, "MPI_Wait", 3, 4, R"(,"completed":[1099511627776])") +
      TestMpi(1, 0, "MPI_Irecv", 1, 2, R"(,"peer":0,"tag":5,"bytes":8,"req":0)") +
      TestMpi(1, 1, "MPI_Irecv", 3, 4, R"(,"peer":0,"tag":6,"bytes":8,"req":1099511627776)") +
      TestMpi(1, 2, "MPI_Wait", 5, 6, R"(,"completed":[1099511627776])") +
      TestMpi(1, 3, "MPI_Wait", 7, 8, R"(,"completed":[0])"));
  const Matching m = Match(t.window, t.dict);
  // The tag-5 message completes at rank 1's second Wait (request 0), not at
  // the first (request 2^40, the tag-6 receive that has no sender).
  EXPECT_EQ(Pairs(t, m), (std::vector<std::string>{"0:0>0:1 1:0>1:3"}));
  EXPECT_EQ(m.unmatched_receives, 1);
}

TEST(Match, WildcardReceivesResolveFromTheirStatus) {
  // Rank 2 posts two ANY_SOURCE/ANY_TAG receives; statuses say 1 (tag 3)
  // then 0 (tag 4).
  const auto t = ReadOneWindow(
      TestHeader(3) + TestMpi(0, 0, "MPI_Send", 5, 6, R"(,"peer":2,"tag":4,"bytes":4)") +
      TestMpi(1, 0, "MPI_Send", 1, 2, R"(,"peer":2,"tag":3,"bytes":4)") +
      TestMpi(2, 0, "MPI_Irecv", 1, 2, R"(,"peer":-1,"tag":-1,"bytes":40,"req":0)") +
      TestMpi(2, 1, "MPI_Irecv", 3, 4, R"(,"peer":-1,"tag":-1,"bytes":40,"req":1)") +
      TestMpi(2, 2, "MPI_Waitall", 5, 9,
              R"(,"completed":[0,1],"resolved":[{"req":0,"peer":1,"tag":3,"bytes":4},{"req":1,"peer":0,"tag":4,"bytes":4}])") +
      TestMpi(2, 3, "MPI_Recv", 10, 11, R"(,"peer":1,"tag":3,"bytes":4)"));
  const Matching m = Match(t.window, t.dict);
  // The last Recv has no sender: one unmatched receive.
  EXPECT_EQ(Pairs(t, m), (std::vector<std::string>{"0:0>0:0 2:1>2:2", "1:0>1:0 2:0>2:2"}));
  EXPECT_EQ(m.unmatched_receives, 1);
  ASSERT_EQ(m.examples.size(), 1u);
  EXPECT_EQ(m.examples[0], "receive without send: comm 0, 1 -> 2, tag 3");
}

TEST(Match, PersistentSendrecvMatchedProbeAndProcNull) {
  const auto t = ReadOneWindow(
      TestHeader(2) + TestMpi(0, 0, "MPI_Send_init", 1, 2, R"(,"peer":1,"tag":1,"bytes":8,"req":0)") +
      TestMpi(0, 1, "MPI_Start", 3, 4, R"(,"req":0)") + TestMpi(0, 2, "MPI_Wait", 5, 6, R"(,"completed":[0])") +
      TestMpi(0, 3, "MPI_Startall", 7, 8, R"(,"reqs":[0])") +
      TestMpi(0, 4, "MPI_Waitall", 9, 10, R"(,"completed":[0])") +
      TestMpi(0, 5, "MPI_Sendrecv", 11, 12, R"(,"peer":1,"tag":2,"bytes":4,"rpeer":1,"rtag":2,"rbytes":4)") +
      TestMpi(0, 6, "MPI_Send", 13, 14, R"(,"peer":-2,"tag":9,"bytes":4)") +
      TestMpi(0, 7, "MPI_Send", 15, 16, R"(,"peer":1,"tag":3,"bytes":4)") +
      TestMpi(1, 0, "MPI_Recv", 1, 6, R"(,"peer":0,"tag":1,"bytes":8)") +
      TestMpi(1, 1, "MPI_Recv", 7, 10, R"(,"peer":0,"tag":1,"bytes":8)") +
      TestMpi(1, 2, "MPI_Sendrecv", 11, 12, R"(,"peer":0,"tag":2,"bytes":4,"rpeer":0,"rtag":2,"rbytes":4)") +
      TestMpi(1, 3, "MPI_Recv", 13, 14, R"(,"peer":-2,"tag":-1,"bytes":0)") +
      TestMpi(1, 4, "MPI_Mprobe", 15, 16, R"(,"peer":0,"tag":3,"bytes":4,"msg":0)") +
      TestMpi(1, 5, "MPI_Mrecv", 17, 18, R"(,"peer":0,"tag":3,"bytes":4,"msg":0)"));
  const Matching m = Match(t.window, t.dict);
  EXPECT_EQ(Pairs(t, m), (std::vector<std::string>{"0:1>0:2 1:0>1:0", "0:3>0:4 1:1>1:1", "0:5>0:5 1:2>1:2",
                                                   "0:7>0:7 1:4>1:5", "1:2>1:2 0:5>0:5"}));
  EXPECT_EQ(m.unmatched_sends + m.unmatched_receives, 0);
}

// Windows end where no request is active, and a persistent request made
// before a barrier lives on after it: its starts there still send and
// receive (found by the online critical path on a persistent halo).
TEST(Match, PersistentRequestsMadeInAnEarlierWindow) {
  const auto t = window::ReadWindows(
      TestHeader(2) + TestMpi(0, 0, "MPI_Send_init", 1, 2, R"(,"peer":1,"tag":1,"bytes":8,"req":0)") +
      TestMpi(1, 0, "MPI_Recv_init", 1, 2, R"(,"peer":0,"tag":1,"bytes":8,"req":3)") +
      TestMpi(0, 1, "MPI_Barrier", 3, 10, R"(,"comm":0)") + TestMpi(1, 1, "MPI_Barrier", 3, 10, R"(,"comm":0)") +
      TestMpi(0, 2, "MPI_Start", 11, 12, R"(,"req":0)") + TestMpi(1, 2, "MPI_Startall", 11, 12, R"(,"reqs":[3])") +
      TestMpi(0, 3, "MPI_Wait", 13, 14, R"(,"completed":[0])") +
      TestMpi(1, 3, "MPI_Wait", 11, 15, R"(,"completed":[3])") +
      TestMpi(0, 4, "MPI_Barrier", 16, 20, R"(,"comm":0)") + TestMpi(1, 4, "MPI_Barrier", 16, 20, R"(,"comm":0)") +
      TestMpi(0, 5, "MPI_Start", 21, 22, R"(,"req":0)") + TestMpi(1, 5, "MPI_Start", 21, 22, R"(,"req":3)") +
      TestMpi(0, 6, "MPI_Wait", 23, 24, R"(,"completed":[0])") +
      TestMpi(1, 6, "MPI_Wait", 21, 25, R"(,"completed":[3])") +
      TestMpi(0, 7, "MPI_Request_free", 26, 27, R"(,"req":0)") +
      TestMpi(1, 7, "MPI_Request_free", 26, 27, R"(,"req":3)"));
  ASSERT_EQ(t.windows.size(), 3u);
  for (size_t w = 1; w < 3; ++w) {
    const Matching m = Match(t.windows[w], t.dict);
    ASSERT_EQ(m.messages.size(), 1u) << "window " << w;
    // Sent by the Start (seq 2, then 5), received by the Wait after it.
    EXPECT_EQ(t.windows[w].events[m.messages[0].send].seq, w == 1 ? 2 : 5);
    EXPECT_EQ(t.windows[w].events[m.messages[0].recv_done].seq, w == 1 ? 3 : 6);
    EXPECT_EQ(m.unmatched_sends + m.unmatched_receives, 0);
    ASSERT_EQ(t.windows[w].inherited.size(), 2u);
    EXPECT_EQ(t.windows[w].inherited[0].rank, 0);
    EXPECT_TRUE(t.windows[w].inherited[0].send);
    EXPECT_EQ(t.windows[w].inherited[1].id, 3);
  }
}

// One Startall sends two messages: ordered by send, then by receive event
// (rank 2's receive is read first), whatever order the keys pair them in.
TEST(Match, MessagesOfOneSendEventOrderedByReceive) {
  const auto t = ReadOneWindow(
      TestHeader(3) + TestMpi(2, 0, "MPI_Recv", 1, 9, R"(,"peer":0,"tag":1,"bytes":8)") +
      TestMpi(0, 0, "MPI_Send_init", 1, 2, R"(,"peer":1,"tag":1,"bytes":8,"req":0)") +
      TestMpi(0, 1, "MPI_Send_init", 3, 4, R"(,"peer":2,"tag":1,"bytes":8,"req":1)") +
      TestMpi(0, 2, "MPI_Startall", 5, 6, R"(,"reqs":[0,1])") +
      TestMpi(0, 3, "MPI_Waitall", 7, 8, R"(,"completed":[0,1])") +
      TestMpi(1, 0, "MPI_Recv", 1, 9, R"(,"peer":0,"tag":1,"bytes":8)"));
  const Matching m = Match(t.window, t.dict);
  EXPECT_EQ(Pairs(t, m), (std::vector<std::string>{"0:2>0:3 2:0>2:0", "0:2>0:3 1:0>1:0"}));
  EXPECT_EQ(m.unmatched_sends + m.unmatched_receives, 0);
}

TEST(Match, CollectiveInstancesInCommunicatorOrder) {
  // Comm 1 lists its members as [2, 0]; the Ibarrier completes in a Wait.
  const auto t = ReadOneWindow(
      TestHeader(3) + R"({"type":"comm","id":1,"size":2,"ranks":[2,0]})" "\n" +
      TestMpi(0, 0, "MPI_Bcast", 1, 5, R"(,"comm":1,"root":2,"bytes":8)") +
      TestMpi(2, 0, "MPI_Bcast", 3, 4, R"(,"comm":1,"root":2,"bytes":8)") +
      TestMpi(0, 1, "MPI_Ibarrier", 6, 7, R"(,"req":0)") + TestMpi(1, 0, "MPI_Ibarrier", 6, 7, R"(,"req":0)") +
      TestMpi(2, 1, "MPI_Ibarrier", 6, 7, R"(,"req":0)") + TestMpi(0, 2, "MPI_Wait", 8, 9, R"(,"completed":[0])") +
      TestMpi(1, 1, "MPI_Wait", 8, 10, R"(,"completed":[0])") +
      TestMpi(2, 2, "MPI_Wait", 8, 11, R"(,"completed":[0])"));
  const Matching m = Match(t.window, t.dict);
  ASSERT_EQ(m.collectives.size(), 2u);
  const Collective& bcast = m.collectives[0];
  EXPECT_EQ(bcast.root, 2);
  ASSERT_EQ(bcast.entries.size(), 2u);
  EXPECT_EQ(t.window.events[bcast.entries[0]].rank, 2);  // comm rank 0 is world rank 2
  EXPECT_EQ(t.window.events[bcast.entries[1]].rank, 0);
  const Collective& barrier = m.collectives[1];
  ASSERT_EQ(barrier.exits.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const window::Event& exit = t.window.events[barrier.exits[i]];
    EXPECT_EQ(exit.rank, static_cast<int32_t>(i));
    EXPECT_EQ(std::string(mpi::kFunctions[exit.fn].name), "MPI_Wait");
  }
  EXPECT_EQ(m.incomplete_collectives, 0);
  EXPECT_EQ(m.mismatched_collectives, 0);
}

TEST(Match, CancelledReceivesTakeNoMessage) {
  // Rank 1 posts a receive for tag 1, cancels it, then receives tag 1 for
  // real: rank 0's one send pairs with the second receive, and nothing is
  // left unmatched.
  const auto t = ReadOneWindow(
      TestHeader(2) + TestMpi(1, 0, "MPI_Irecv", 1, 2, R"(,"peer":0,"tag":1,"req":0)") +
      TestMpi(1, 1, "MPI_Cancel", 3, 4, R"(,"req":0)") + TestMpi(1, 2, "MPI_Wait", 5, 6, R"(,"completed":[0])") +
      TestMpi(1, 3, "MPI_Recv", 7, 20, R"(,"peer":0,"tag":1)") +
      TestMpi(0, 0, "MPI_Send", 10, 12, R"(,"peer":1,"tag":1)"));
  const Matching m = Match(t.window, t.dict);
  EXPECT_EQ(Pairs(t, m), std::vector<std::string>{"0:0>0:0 1:3>1:3"});
  EXPECT_EQ(m.unmatched_sends + m.unmatched_receives + m.unresolved_receives, 0);
}

TEST(Match, CollectiveInstancesMissingAMemberAreCounted) {
  // Rank 1's record of the first of two broadcasts on the world is
  // missing: its second call pairs with the others' first, and the second
  // instance lacks it. Comm 1 has no record: its size is not known.
  const std::string bcast = R"(,"root":0)";
  const auto t = ReadOneWindow(
      TestHeader(3) + TestMpi(0, 0, "MPI_Bcast", 1, 5, bcast) + TestMpi(2, 0, "MPI_Bcast", 3, 5, bcast) +
      TestMpi(0, 1, "MPI_Bcast", 6, 9, bcast) + TestMpi(1, 1, "MPI_Bcast", 7, 9, bcast) +
      TestMpi(2, 1, "MPI_Bcast", 7, 9, bcast) + TestMpi(0, 2, "MPI_Bcast", 10, 11, R"(,"comm":1,"root":0)"));
  const Matching m = Match(t.window, t.dict);
  EXPECT_EQ(m.collectives.size(), 3u);
  EXPECT_EQ(m.incomplete_collectives, 1);
}

}  // namespace
}  // namespace rp::match
