#include "lib/online/path.h"

#include <gtest/gtest.h>

#include <vector>

namespace rp::online {
namespace {

constexpr uint64_t kSend = 1, kRecv = 2, kCompute = 3, kAllreduce = 4;

// A chain of 4 ranks: rank r receives from r-1, works W, sends to r+1; a
// message takes 10 ns after its send's entry; sends return at once. By
// hand: 4 W of computation before the sends and 3 x 10 ns in receives.
TEST(Path, AChainIsEveryRanksWorkAndTheTransfers) {
  constexpr int64_t W = 1000;
  Entry sent;  // the piggyback in flight
  Path p;
  int64_t t = 0;
  for (int32_t rank = 0; rank < 4; ++rank) {
    Path mine;
    mine.set_end_rank(rank);
    if (rank > 0) {
      // Entered the receive at 0, waiting; the message arrives 10 ns after
      // its send entered.
      const Entry own{mine, 0};
      mine = AtExit(own, std::span<const Entry>(&sent, 1), sent.t + 10, kRecv, rank);
      t = sent.t + 10;
    }
    mine.AddCompute(kSend, W);
    t += W;
    sent = Entry{mine, t};
    p = mine;
  }
  EXPECT_EQ(p.length(), 4 * W + 3 * 10);
  EXPECT_EQ(p.compute(), 4 * W);
  EXPECT_EQ(p.mpi(), 30);
  EXPECT_EQ(p.end_rank(), 3);
  ASSERT_EQ(p.sites().size(), 2u);
  EXPECT_EQ(p.sites()[0].site, kSend);
  EXPECT_EQ(p.sites()[0].compute, 4 * W);
  EXPECT_EQ(p.sites()[1].site, kRecv);
  EXPECT_EQ(p.sites()[1].mpi, 30);
  // Each rank's work, and the 10 ns waits on the receiving ranks.
  ASSERT_EQ(p.ranks().size(), 4u);
  EXPECT_EQ(p.ranks()[0].rank, 0);
  EXPECT_EQ(p.ranks()[0].ns, W);
  EXPECT_EQ(p.ranks()[3].rank, 3);
  EXPECT_EQ(p.ranks()[3].ns, W + 10);
}

// K iterations of work c and an Allreduce on 4 ranks, rank s working
// c + d; the Allreduce exits 5 ns after the last entry. By hand: K (c + d)
// of computation, all of it the slow rank's, and 5 K in the Allreduce,
// wherever s is.
TEST(Path, ASlowRankSetsTheLengthWhereverItIs) {
  constexpr int64_t c = 1000, d = 300, K = 7;
  for (int32_t s = 0; s < 4; ++s) {
    std::vector<Path> paths(4);
    int64_t start = 0;
    for (int64_t k = 0; k < K; ++k) {
      std::vector<Entry> entries(4);
      for (int32_t r = 0; r < 4; ++r) {
        const int64_t work = r == s ? c + d : c;
        paths[r].AddCompute(kCompute, work);
        entries[r] = Entry{paths[r], start + work};
      }
      const int64_t exit = start + c + d + 5;
      for (int32_t r = 0; r < 4; ++r) {
        std::vector<Entry> partners;
        for (int32_t q = 0; q < 4; ++q) {
          if (q != r) partners.push_back(entries[q]);
        }
        paths[r] = AtExit(entries[r], partners, exit, kAllreduce, r);
      }
      start = exit;
    }
    for (const Path& p : paths) {
      EXPECT_EQ(p.length(), K * (c + d + 5)) << "slow rank " << s;
      EXPECT_EQ(p.compute(), K * (c + d));
      EXPECT_EQ(p.sites()[0].compute, K * (c + d));
      EXPECT_EQ(p.sites()[1].mpi, 5 * K);
    }
  }
}

// The collector's in-place form gives what AtExit gives.
TEST(Path, ExitInPlaceIsAtExit) {
  Path own, other;
  own.AddCompute(kCompute, 100);
  other.AddCompute(kSend, 250);
  std::vector<Entry> partners{{other, 40}};
  const Path expected = AtExit(Entry{own, 30}, partners, 90, kRecv, 1);
  ExitInPlace(&own, 30, partners, 90, kRecv, 1);
  EXPECT_EQ(own.length(), expected.length());
  EXPECT_EQ(own.length(), 250 + 50);
  EXPECT_EQ(own.sites()[0].site, kSend);
  EXPECT_EQ(own.end_rank(), 1);
  // A shorter partner leaves the own path, plus the time after it was ready.
  Path mine;
  mine.AddCompute(kCompute, 500);
  std::vector<Entry> short_one{{other, 70}};
  ExitInPlace(&mine, 30, short_one, 90, kRecv, 2);
  EXPECT_EQ(mine.length(), 520);
}

// Beyond kSites sites the lightest gives way; the totals stay whole.
TEST(Path, TheLightestSiteGivesWayAndNothingIsLost) {
  Path p;
  for (uint64_t site = 1; site <= Path::kSites; ++site) p.AddCompute(site, static_cast<int64_t>(site) * 10);
  p.AddMpi(1000, 5000);  // a new site: site 1 (10 ns) makes room
  ASSERT_EQ(p.sites().size(), Path::kSites);
  EXPECT_EQ(p.other_compute(), 10);
  EXPECT_EQ(p.sites()[0].site, 1000u);
  int64_t sum = p.other_compute() + p.other_mpi();
  for (const SiteShare& s : p.sites()) sum += s.total();
  EXPECT_EQ(sum, p.length());
  EXPECT_LE(p.WireBytes(), kWireBytes);
  EXPECT_LE(kWireBytes, 4096u);  // under Open MPI's shared-memory eager limit
}

// Beyond kRanks ranks the lightest gives way; the length keeps its time.
TEST(Path, TheLightestRankGivesWay) {
  Path p;
  for (int32_t rank = 0; rank <= static_cast<int32_t>(Path::kRanks); ++rank) {
    p.set_end_rank(rank);
    p.AddCompute(1, 100 + rank);
  }
  ASSERT_EQ(p.ranks().size(), Path::kRanks);
  EXPECT_EQ(p.ranks()[0].rank, static_cast<int32_t>(Path::kRanks));  // rank 0 (100 ns) made room
  int64_t kept = 0;
  for (const RankShare& r : p.ranks()) kept += r.ns;
  EXPECT_EQ(p.length() - kept, 100);
  std::vector<uint8_t> buf(kWireBytes);
  Path q;
  int64_t t = 0;
  ASSERT_TRUE(Path::Decode(std::span<const uint8_t>(buf.data(), p.Encode(buf, 1)), &q, &t));
  ASSERT_EQ(q.ranks().size(), Path::kRanks);
  EXPECT_EQ(q.ranks()[5].ns, p.ranks()[5].ns);
}

TEST(Path, TheWireRecordRoundTrips) {
  Path p;
  p.AddCompute(7, 123);
  p.AddMpi(9, 45);
  p.AddCompute(7, 1);
  p.set_end_rank(5);
  std::vector<uint8_t> buf(kWireBytes);
  const size_t n = p.Encode(buf, 987654321);
  EXPECT_EQ(n, Path::kHeaderBytes + 2 * Path::kSiteBytes);
  Path q;
  int64_t t = 0;
  ASSERT_TRUE(Path::Decode(std::span<const uint8_t>(buf.data(), n), &q, &t));
  EXPECT_EQ(t, 987654321);
  EXPECT_EQ(q.length(), 169);
  EXPECT_EQ(q.end_rank(), 5);
  ASSERT_EQ(q.sites().size(), 2u);
  EXPECT_EQ(q.sites()[0].compute, 124);
  EXPECT_EQ(q.sites()[1].mpi, 45);
  // Cut short, or of another version: refused.
  EXPECT_FALSE(Path::Decode(std::span<const uint8_t>(buf.data(), n - 1), &q, &t));
  buf[0] = 9;
  EXPECT_FALSE(Path::Decode(std::span<const uint8_t>(buf.data(), n), &q, &t));
}

// The collectives' user operation: the longer path, the later entry.
TEST(Path, CombineKeepsTheLongerPathAndTheLaterEntry) {
  Path a, b;
  a.AddCompute(1, 100);
  b.AddCompute(2, 300);
  std::vector<uint8_t> wa(kWireBytes), wb(kWireBytes);
  a.Encode(wa, 50);
  b.Encode(wb, 20);
  CombineWire(wb.data(), wa.data());  // b longer, a later
  Path out;
  int64_t t = 0;
  ASSERT_TRUE(Path::Decode(wa, &out, &t));
  EXPECT_EQ(out.length(), 300);
  EXPECT_EQ(out.sites()[0].site, 2u);
  EXPECT_EQ(t, 50);
  // A tie keeps inout's.
  Path c;
  c.AddCompute(3, 300);
  std::vector<uint8_t> wc(kWireBytes);
  c.Encode(wc, 10);
  CombineWire(wc.data(), wa.data());
  ASSERT_TRUE(Path::Decode(wa, &out, &t));
  EXPECT_EQ(out.sites()[0].site, 2u);
}

// Critical path zeroing (online-CP §3), by hand. Two ranks work and meet
// in an Allreduce that exits 5 ns after the last entry: rank 0 works 300
// before its call at site A, rank 1 200 before its call at site B. The
// path is 300 + 5, all of A's computation; without it rank 1's 200 + 5
// would be the path: zeroing A saves 100, not its 300 share; zeroing B
// saves nothing; zeroing the Allreduce's calls saves their 5 (the same
// site on both ranks: both paths lose them).
TEST(Path, ZeroingSavesWhatTheNextLongestPathLeaves) {
  constexpr uint64_t kA = 10, kB = 11;
  struct Zeroing {
    Zeroing() { Path::set_zeroing(true); }
    ~Zeroing() { Path::set_zeroing(false); }
  } on;
  Path p0, p1;
  p0.AddCompute(kA, 300);
  p1.AddCompute(kB, 200);
  ASSERT_TRUE(p0.has_reductions());
  std::vector<Entry> partners{{p1, 200}};
  Path out = AtExit({p0, 300}, partners, 305, kAllreduce, 0);
  EXPECT_EQ(out.length(), 305);
  ASSERT_EQ(out.sites().size(), 2u);
  EXPECT_EQ(out.sites()[0].site, kA);
  EXPECT_EQ(out.sites()[0].compute, 300);
  EXPECT_EQ(out.sites()[0].reduction_compute, 100);
  EXPECT_EQ(out.sites()[1].site, kAllreduce);
  EXPECT_EQ(out.sites()[1].reduction_mpi, 5);
  // The same pair through the collectives' operation, either way round.
  for (bool swap : {false, true}) {
    std::vector<uint8_t> w0(kWireBytes), w1(kWireBytes);
    p0.Encode(w0, 300);
    p1.Encode(w1, 200);
    if (swap) CombineWire(w0.data(), w1.data());
    else CombineWire(w1.data(), w0.data());
    Path combined;
    int64_t t = 0;
    ASSERT_TRUE(Path::Decode(swap ? w1 : w0, &combined, &t));
    ASSERT_TRUE(combined.has_reductions());
    EXPECT_EQ(combined.length(), 300);
    EXPECT_EQ(combined.sites()[0].reduction_compute, 100);
    EXPECT_EQ(t, 300);
  }
  // Equal paths through different sites: zeroing either saves nothing.
  Path q0, q1;
  q0.AddCompute(kA, 300);
  q1.AddCompute(kB, 300);
  q0.BoundReductions(q1);
  EXPECT_EQ(q0.sites()[0].reduction_compute, 0);
  // The same site on both: zeroing it saves the shorter path's share more
  // than the gap: min(300, 100 + 200).
  Path r0, r1;
  r0.AddCompute(kA, 300);
  r1.AddCompute(kA, 200);
  r0.BoundReductions(r1);
  EXPECT_EQ(r0.sites()[0].reduction_compute, 300);
  // Lowered by the members' bounds (an Allreduce with MPI_MIN).
  const int64_t bounds[] = {250, 0};  // the site's computation, its calls
  r0.LowerReductions(bounds);
  EXPECT_EQ(r0.sites()[0].reduction_compute, 250);
  // A sampled function's share of the computation: zeroing it saves what
  // the other path leaves, as for a site (rank 1's 200 ran in another).
  Path f0, f1;
  f0.AddCompute(kA, 300);
  f0.AddFunction(7, 250, Path::NamedBy::kSamples);
  f1.AddCompute(kB, 200);
  f1.AddFunction(8, 200, Path::NamedBy::kSamples);
  f0.BoundReductions(f1);
  ASSERT_EQ(f0.functions().size(), 0u);  // no function kept: sampling off here
  Path::set_function_limit(4);
  Path g0, g1;
  g0.AddCompute(kA, 300);
  g0.AddFunction(7, 250, Path::NamedBy::kSamples);
  g0.AddFunction(8, 50, Path::NamedBy::kLastSample);
  g1.AddCompute(kB, 200);
  g1.AddFunction(8, 200, Path::NamedBy::kSamples);
  g0.BoundReductions(g1);
  ASSERT_EQ(g0.functions().size(), 2u);
  EXPECT_EQ(g0.functions()[0].reduction, 100);  // without 7: max(50, 200)
  EXPECT_EQ(g0.functions()[1].reduction, 50);   // without 8: max(250, 0)
  EXPECT_EQ(g0.compute_named(Path::NamedBy::kSamples), 250);
  std::vector<uint8_t> wire(kWireBytes);
  int64_t t = 0;
  Path back;
  ASSERT_TRUE(Path::Decode(std::span<const uint8_t>(wire.data(), g0.Encode(wire, 9)), &back, &t));
  EXPECT_EQ(back.functions()[0].reduction, 100);
  EXPECT_EQ(back.compute_named(Path::NamedBy::kLastSample), 50);
  Path::set_function_limit(0);
  // Without zeroing, records keep 24 bytes a site and no reductions.
  Path::set_zeroing(false);
  Path plain;
  plain.AddCompute(kA, 300);
  EXPECT_FALSE(plain.has_reductions());
  EXPECT_EQ(plain.WireBytes(), Path::kHeaderBytes + Path::kSiteBytes);
  EXPECT_EQ(out.WireBytes(), Path::kHeaderBytes + 2 * Path::kZeroingSiteBytes + Path::kRankBytes);
  // The sites that fit the piggyback: 128 without, 76 with zeroing.
  EXPECT_EQ(Path::SitesFitting(kWireBytes), 128u);
  Path::set_zeroing(true);
  EXPECT_EQ(Path::SitesFitting(kWireBytes), 76u);
}

// MPI_Pcontrol regions (online-CP §2.3), by hand. Odd regions measure.
TEST(Path, NothingAccruesOutsideAMeasuredRegion) {
  Path p;
  p.AddCompute(kCompute, 100);
  p.set_region(2);  // MPI_Pcontrol(0)
  p.AddCompute(kCompute, 1000);
  p.AddMpi(kRecv, 1000);
  EXPECT_EQ(p.length(), 100);
  EXPECT_EQ(p.sites().size(), 1u);
}

TEST(Path, APathFromALaterRegionIsItsMarker) {
  // Case 3: a stopped rank (region 2) receives from a measuring one
  // (region 3) whose send entered at 1000 with 500 ns of path; the receive
  // exits at 1010: it enters region 3 and counts the 10 ns after the send.
  Path stopped;
  stopped.set_region(2);
  Path sender;
  sender.set_region(3);
  sender.AddCompute(kSend, 500);
  Path got = AtExit(Entry{stopped, 0}, std::vector<Entry>{{sender, 1000}}, 1010, kRecv, 1);
  EXPECT_EQ(got.region(), 3);
  EXPECT_EQ(got.length(), 510);
  got.AddCompute(kCompute, 40);
  EXPECT_EQ(got.length(), 550);
  // A stop marker: a measuring rank (region 3, 300 ns) receives from a
  // stopped one (region 4, 1000 ns): it stops before the receive's time,
  // and its work after that is not on the path.
  Path measuring;
  measuring.set_region(3);
  measuring.AddCompute(kCompute, 300);
  Path done;
  done.set_region(3);
  done.AddCompute(kSend, 1000);
  done.set_region(4);  // its MPI_Pcontrol(0), then the send
  Path after = AtExit(Entry{measuring, 400}, std::vector<Entry>{{done, 900}}, 950, kRecv, 2);
  EXPECT_EQ(after.region(), 4);
  EXPECT_EQ(after.length(), 1000);
  after.AddCompute(kCompute, 70);
  EXPECT_EQ(after.length(), 1000);
  // Case 4: a message sent before the start (region 2, nothing on its
  // path) reaches a measuring rank: nothing starts or stops; the 20 ns
  // after both entered count.
  Path early;
  early.set_region(2);
  Path inside;
  inside.set_region(3);
  inside.AddCompute(kCompute, 200);
  Path kept = AtExit(Entry{inside, 100}, std::vector<Entry>{{early, 50}}, 120, kRecv, 0);
  EXPECT_EQ(kept.region(), 3);
  EXPECT_EQ(kept.length(), 220);
}

TEST(Path, CombineKeepsTheHigherRegion) {
  Path a, b;
  a.AddCompute(1, 100);
  a.set_region(5);
  b.AddCompute(2, 300);  // longer, region 1
  std::vector<uint8_t> wa(kWireBytes), wb(kWireBytes);
  a.Encode(wa, 50);
  b.Encode(wb, 20);
  CombineWire(wa.data(), wb.data());
  Path out;
  int64_t t = 0;
  ASSERT_TRUE(Path::Decode(wb, &out, &t));
  EXPECT_EQ(out.length(), 300);
  EXPECT_EQ(out.region(), 5);
}

}  // namespace
}  // namespace rp::online
