#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "lib/profile/attribution.h"
#include "lib/profile/frames.h"
#include "lib/window/testing.h"

namespace rp::profile {
namespace {

TEST(Frames, SystemAndMpiLibrariesAreLibraryCode) {
  EXPECT_TRUE(IsSystemModule("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_TRUE(IsSystemModule("/usr/lib/x86_64-linux-gnu/libm.so.6"));
  EXPECT_TRUE(IsSystemModule("/usr/lib/x86_64-linux-gnu/libmpi.so.40"));
  EXPECT_TRUE(IsSystemModule("/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so"));
  EXPECT_TRUE(IsSystemModule("[vdso]"));
  EXPECT_FALSE(IsSystemModule("/usr/lib/x86_64-linux-gnu/liblammps.so.0"));
  EXPECT_FALSE(IsSystemModule("/opt/app/bin/app"));
  EXPECT_FALSE(IsSystemModule(""));
  EXPECT_TRUE(IsSystemSource("/usr/include/c++/12/bits/stl_vector.h"));
  EXPECT_FALSE(IsSystemSource("src/solver.h"));
}

// testdata/traces/samples.ndjson's first window (to the Barrier), worked
// by hand in tests/golden/rp-cpath/samples.cmd.
class SamplesTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in("testdata/traces/samples.ndjson");
    std::stringstream text;
    text << in.rdbuf();
    trace_ = window::ReadOneWindow(text.str());
  }
  // The event of `rank`'s call number `seq` in the window.
  uint32_t EventOf(int rank, int seq) const {
    for (uint32_t e = 0; e < trace_.window.events.size(); ++e) {
      if (trace_.window.events[e].rank == rank && trace_.window.events[e].seq == seq) return e;
    }
    ADD_FAILURE() << "no rank " << rank << " seq " << seq;
    return 0;
  }
  // ns by the function each share's owner names.
  static std::map<std::string, int64_t> ByFunction(const ContextTree& tree, const Attribution::Computation& c) {
    std::map<std::string, int64_t> out;
    for (const Share* s = c.begin; s != c.end; ++s) {
      out[tree.functions()[tree.node(tree.node(s->node).owner).function]] += s->ns;
    }
    return out;
  }
  window::TestTrace trace_;
};

TEST_F(SamplesTrace, SamplesSplitTheComputationTheyLieIn) {
  Attribution a(trace_.dict);
  ASSERT_TRUE(a.AddWindow(trace_.window, 10).ok());
  const Attribution::Computation c = a.Before(EventOf(0, 1));
  EXPECT_EQ(c.t0, 10);
  EXPECT_EQ(c.t1, 110);
  EXPECT_EQ(c.method, Method::kSampled);
  // The sample at 110 lies on the boundary and counts; the one with weight
  // 0 counts with the last weight: four equal samples, three in heavy.
  EXPECT_EQ(ByFunction(a.tree(), c), (std::map<std::string, int64_t>{{"heavy", 75}, {"light", 25}}));
  EXPECT_EQ(a.counts().unweighted, 1);
}

TEST_F(SamplesTrace, ARankWithoutSamplesChargesTheCallEndingIt) {
  Attribution a(trace_.dict);
  ASSERT_TRUE(a.AddWindow(trace_.window, 10).ok());
  const Attribution::Computation c = a.Before(EventOf(1, 1));
  EXPECT_EQ(c.method, Method::kCallSite);
  EXPECT_EQ(ByFunction(a.tree(), c), (std::map<std::string, int64_t>{{"main", 40}}));
  // MPI_Init's computation lies before the application's time.
  EXPECT_EQ(a.Before(EventOf(0, 0)).begin, nullptr);
}

TEST_F(SamplesTrace, LibraryAndInlinedSystemFramesAreChargedToTheirCaller) {
  Attribution a(trace_.dict);
  ContextTree& tree = a.tree();
  const int32_t sleep = tree.Intern({5, 6, 7});  // clock_nanosleep < light < main
  EXPECT_TRUE(tree.node(sleep).library);
  EXPECT_EQ(tree.functions()[tree.node(tree.node(sleep).owner).function], "light");
  EXPECT_EQ(tree.Path(tree.node(sleep).owner), (std::vector<int64_t>{6, 7}));
  const int32_t inlined = tree.Intern({8, 9, 4});  // vector::operator[] inlined into heavy
  EXPECT_TRUE(tree.node(inlined).library);
  EXPECT_EQ(tree.node(tree.node(inlined).owner).site, 9);
  // A recursive call repeats a site: not inlining.
  const int32_t recursive = tree.Intern({3, 3, 4});
  EXPECT_FALSE(tree.node(recursive).library);
  EXPECT_EQ(tree.node(recursive).owner, recursive);
  // Undefined sites are left out and counted.
  EXPECT_EQ(tree.Intern({99, 3, 4}), tree.Intern({3, 4}));
  EXPECT_EQ(tree.undefined_frames(), 1);
}

TEST_F(SamplesTrace, PartOfAComputationIsScaledExactly) {
  Attribution a(trace_.dict);
  ASSERT_TRUE(a.AddWindow(trace_.window, 10).ok());
  std::map<std::string, int64_t> parts;
  int64_t total = 0;
  const Method m = a.Split(0, 61, 110, 1, [&](int32_t node, int64_t ns) {
    parts[a.tree().functions()[a.tree().node(a.tree().node(node).owner).function]] += ns;
    total += ns;
  });
  EXPECT_EQ(m, Method::kSampled);
  EXPECT_EQ(total, 49);  // 49/100 of the computation, rounding keeping the sum
  EXPECT_EQ(parts["light"] + parts["heavy"], 49);
  // No computation of rank 0 ends at 115: charged to the site given.
  std::string named;
  EXPECT_EQ(a.Split(0, 112, 115, 2, [&](int32_t node, int64_t) { named = a.tree().functions()[a.tree().node(node).function]; }),
            Method::kCallSite);
  EXPECT_EQ(named, "main");
}

}  // namespace
}  // namespace rp::profile
