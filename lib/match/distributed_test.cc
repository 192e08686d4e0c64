// MatchAcross over threads as processes: on generated traces whose
// messages and collectives cross between the processes' ranks, every
// process's matching holds exactly the one-process matching's messages and
// collectives that have an event of its ranks (the same events, ghosts
// standing for the others'), in the same order, and the unmatched and
// incomplete counts add up to the one-process counts.
#include "lib/match/distributed.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "lib/dist/local_comm.h"
#include "lib/match/testing.h"
#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::match {
namespace {

// A matching described by (rank, seq) pairs, comparable across processes.
struct Described {
  std::vector<std::string> messages, collectives;
  int64_t unmatched_sends = 0, unmatched_receives = 0, unresolved = 0, incomplete = 0, mismatched = 0;
};

std::string Name(const window::Window& w, uint32_t e) {
  if (e == kNoEvent) return "-";
  return std::to_string(w.events[e].rank) + "." + std::to_string(w.events[e].seq);
}

// `local(rank)`: keep only what has an event of such a rank.
Described Describe(const window::Window& w, const Matching& m, const std::function<bool(int64_t)>& local) {
  Described d;
  auto mine = [&](uint32_t e) { return e != kNoEvent && local(w.events[e].rank); };
  for (const Message& msg : m.messages) {
    if (!mine(msg.send) && !mine(msg.send_done) && !mine(msg.recv) && !mine(msg.recv_done)) continue;
    d.messages.push_back(Name(w, msg.send) + ">" + Name(w, msg.send_done) + ">" + Name(w, msg.recv) + ">" +
                         Name(w, msg.recv_done) + ":" + std::to_string(msg.bytes));
  }
  for (const Collective& c : m.collectives) {
    bool any = false;
    std::string text = std::to_string(c.comm) + "/" + std::to_string(c.fn) + "/" + std::to_string(c.root) + ":";
    for (size_t i = 0; i < c.entries.size(); ++i) {
      any |= mine(c.entries[i]);
      text += " " + Name(w, c.entries[i]) + "-" + Name(w, c.exits[i]);
    }
    if (any) d.collectives.push_back(text);
  }
  d.unmatched_sends = m.unmatched_sends;
  d.unmatched_receives = m.unmatched_receives;
  d.unresolved = m.unresolved_receives;
  d.incomplete = m.incomplete_collectives;
  d.mismatched = m.mismatched_collectives;
  return d;
}

void ExpectSameMatching(const std::string& name, const std::string& text, const std::vector<std::pair<int, int>>& groups,
                        int processes) {
  const window::TestWindows whole = window::ReadWindows(text);
  const std::string index = trace::WriteSplit(name, text, groups);
  std::mutex mu;
  std::vector<std::vector<Described>> got(processes);
  std::vector<Owners> owners_of(processes);
  dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
    const int me = comm.rank();
    std::vector<Described> mine;
    const Owners owners = ForEachWindowAcross(
        comm, index, [&](const Owners& o, const window::Window& w, const Matching& m, const Ghosts&) {
          mine.push_back(Describe(w, m, [&](int64_t rank) { return o.Of(rank) == me; }));
          // Ghosts are the other processes' events, in the stream's order.
          for (size_t i = 1; i < w.events.size(); ++i) {
            EXPECT_LT(EventOrder::Of(w.events[i - 1]), EventOrder::Of(w.events[i]));
          }
          for (const window::Event& e : w.events) EXPECT_EQ(e.ghost(), o.Of(e.rank) != me);
        });
    std::lock_guard lock(mu);
    got[me] = std::move(mine);
    owners_of[me] = owners;
  });
  for (size_t wi = 0; wi < whole.windows.size(); ++wi) {
    const window::Window& w = whole.windows[wi];
    const Matching m = Match(w, whole.dict);
    const Described all = Describe(w, m, [](int64_t) { return true; });
    Described sum;
    for (int p = 0; p < processes; ++p) {
      SCOPED_TRACE(name + ": window " + std::to_string(wi) + ", process " + std::to_string(p) + " of " +
                   std::to_string(processes));
      ASSERT_EQ(got[p].size(), whole.windows.size());
      const Described expected = Describe(w, m, [&](int64_t rank) { return owners_of[p].Of(rank) == p; });
      EXPECT_EQ(got[p][wi].messages, expected.messages);
      EXPECT_EQ(got[p][wi].collectives, expected.collectives);
      sum.unmatched_sends += got[p][wi].unmatched_sends;
      sum.unmatched_receives += got[p][wi].unmatched_receives;
      sum.unresolved += got[p][wi].unresolved;
      sum.incomplete += got[p][wi].incomplete;
      sum.mismatched += got[p][wi].mismatched;
    }
    EXPECT_EQ(sum.unmatched_sends, all.unmatched_sends) << "window " << wi;
    EXPECT_EQ(sum.unmatched_receives, all.unmatched_receives) << "window " << wi;
    EXPECT_EQ(sum.unresolved, all.unresolved) << "window " << wi;
    EXPECT_EQ(sum.incomplete, all.incomplete) << "window " << wi;
    EXPECT_EQ(sum.mismatched, all.mismatched) << "window " << wi;
  }
}

TEST(MatchAcross, EqualsTheOneProcessMatching) {
  const std::string text = MixedTrace(6, 5);
  // The trace has what the comparison must cover: several windows, each
  // with messages and collectives, and a send never received.
  const window::TestWindows whole = window::ReadWindows(text);
  ASSERT_GE(whole.windows.size(), 4u);
  int64_t unmatched = 0;
  for (const window::Window& w : whole.windows) {
    const Matching m = Match(w, whole.dict);
    if (w.events.size() > 20) EXPECT_GE(m.messages.size(), 16u);  // 6 ring, 3 pairs, 6 shifts, 1 persistent
    unmatched += m.unmatched_sends;
  }
  EXPECT_EQ(unmatched, 1);
  for (int processes : {1, 2, 3, 4}) {
    ExpectSameMatching("across-3", text, {{0, 1}, {2, 3}, {4, 5}}, processes);
    ExpectSameMatching("across-6", text, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, processes);
  }
}

}  // namespace
}  // namespace rp::match
