#include "lib/online/scope.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/cpath/records.h"
#include "lib/mpi/functions.h"
#include "lib/trace/testing.h"
#include "lib/window/event.h"

namespace rp::online {
namespace {

// The slow-rank case's answer (path_test): 4 ranks, 7 iterations of
// computation before an Allreduce at site key 0xA (1.0 us, the slow rank
// 1.3 us), each Allreduce 5 ns after the last entry. The path: 7 x 1.3 us
// of computation and 7 x 5 ns. All ranks: 7 x (3 x 1.0 + 1.3) = 30.1 us of
// computation and 7 x (3 x 305 + 5) = 6.44 us in the Allreduces. Written by
// rp-cpath's own writer.
TEST(ToScope, TheOnlineAnswerIsWrittenAsRpCpathWritesItsOwn) {
  Path path;
  path.AddCompute(0xA, 7 * 1300);
  path.AddMpi(0xA, 7 * 5);
  path.set_end_rank(2);
  const SiteTotal totals[] = {{0xA, 30100, 6440, 28, mpi::kFn_MPI_Allreduce}};
  auto id = [](uint64_t key) { return key == 0xA ? 3 : window::kNone; };
  const cpath::Scope scope = ToScope(path, totals, id, 1000, 1000 + 9135);
  ASSERT_EQ(scope.sites.size(), 1u);
  EXPECT_EQ(scope.length, 9135);

  window::Dictionary dict;
  trace::SiteRecord site;
  site.set_id(3);
  site.set_fn("main");
  site.set_file("slow.c");
  site.set_line(42);
  dict.sites.push_back(site);
  std::string text;
  auto out = trace::TextOutput(&text);
  cpath::RecordWriter writer(dict, *out);
  ASSERT_TRUE(writer.WriteScope(scope, window::kNone, {1000, 10135}, "online", cpath::Problems{}, false).ok());
  ASSERT_TRUE(out->Close().ok());
  EXPECT_NE(text.find(R"("type":"cp_summary","algo":"online","length":9135,"run_time":9135)"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("compute":9100,"mpi":35)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("scope":"site","site":3,"fn":"main","call":"MPI_Allreduce","file":"slow.c","line":42,)"
                      R"("cp":9135,"cp_compute":9100,"cp_mpi":35,"cp_share":1,"time":36540)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace rp::online
