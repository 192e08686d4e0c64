#include "lib/report/format.h"
#include "lib/report/hops_section.h"
#include "lib/report/report.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/trace/testing.h"

namespace rp::report {
namespace {

const char* kHeader = R"({"type":"header","schema":"rp-trace/1","producer":["test"]})" "\n";

// A 2 ms critical path: 1.5 ms computation before an Allreduce at
// main a.c:10 on rank 1, 0.5 ms in that Allreduce; rank 0 waits 1 ms.
std::string CriticalPathRecords() {
  return std::string(kHeader) +
         R"({"type":"cp_summary","algo":"exact","length":2000000,"run_time":2500000,"start":0,"end_rank":1,"compute":1500000,"mpi":500000,"transfer":0,"wait":0,"segments":2,"rank_share":[0,1],"partial":false})" "\n"
         R"({"type":"cp_profile","scope":"site","site":3,"fn":"main","call":"MPI_Allreduce","file":"/src/a.c","line":10,"cp":2000000,"cp_compute":1500000,"cp_mpi":500000,"cp_share":1,"time":4000000,"time_compute":2500000,"time_mpi":1500000,"time_share":0.8,"calls":2})" "\n"
         R"({"type":"cp_profile","scope":"site","call":"MPI_Init","cp":0,"cp_share":0,"time":1000000,"time_share":0.2,"calls":2})" "\n"
         R"({"type":"cp_profile","scope":"site","phase":0,"site":3,"cp":1,"cp_share":1,"time":1,"time_share":1})" "\n"
         R"({"type":"cp_zeroing","site":3,"kind":"compute","fn":"main","call":"MPI_Allreduce","length":500000,"reduction":1500000})" "\n"
         R"({"type":"cp_zeroing","site":3,"kind":"mpi","fn":"main","call":"MPI_Allreduce","length":2000000,"reduction":0})" "\n"
         R"({"type":"cp_imbalance","scope":"process","rank":0,"wait_before":1000000,"wait_after":0,"execution":500000,"compute":1500000})" "\n"
         R"({"type":"cp_imbalance","scope":"process","rank":1,"wait_before":0,"wait_after":0,"execution":500000,"compute":1500000})" "\n"
         R"({"type":"cp_imbalance","scope":"program","wait_before":1000000,"wait_after":0,"execution":1000000,"compute":3000000})" "\n";
}

Status Render(const std::string& stream, Format format, std::string* out) {
  trace::InputSet input = trace::TextInput(stream);
  auto writer = trace::TextOutput(out);
  return RenderStream(input, format, *writer);
}

TEST(Report, CriticalPathAsText) {
  std::string text;
  ASSERT_TRUE(Render(CriticalPathRecords(), Format::kText, &text).ok());
  EXPECT_EQ(text,
            "critical path (exact): 2.000 ms of a 2.500 ms run ( 80.0%), ending on rank 1\n"
            "  on the path: compute  75.0%, mpi  25.0%, transfer   0.0%; unexplained wait 0 ns\n"
            "  ranks carrying it: 1 100.0%\n"
            "\n"
            "   CP%  time%   on path        all ranks      calls  call at site\n"
            "100.0%  80.0%       2.000 ms       4.000 ms        2  MPI_Allreduce at main a.c:10\n"
            "  0.0%  20.0%           0 ns       1.000 ms        2  MPI_Init at (no site)\n"
            "\n"
            "what if it took no time (critical path zeroing):\n"
            "  computation before MPI_Allreduce at main a.c:10: 500.000 us (-1.500 ms,  75.0%)\n"
            "\n"
            "imbalance (waiting / (execution + computation)): program  25.0%\n"
            "  rank 0 waits 1.000 ms ( 50.0%)\n"
            "  rank 1 waits 0 ns (  0.0%)\n");
}

TEST(Report, CriticalPathAsMarkdown) {
  std::string md;
  ASSERT_TRUE(Render(CriticalPathRecords(), Format::kMarkdown, &md).ok());
  EXPECT_NE(md.find("## Critical path (exact)\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 100.0% | 80.0% | 2.000 ms | 4.000 ms | 2 | MPI_Allreduce | main a.c:10 |\n"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| computation before MPI_Allreduce at main a.c:10 | 500.000 us | 1.500 ms | 75.0% |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 0 | 1.000 ms | 50.0% |\n"), std::string::npos) << md;
}

TEST(Report, AStageRenderedAsItRunsEqualsItsSavedRecords) {
  std::string direct, saved;
  auto writer = trace::TextOutput(&direct);
  ASSERT_TRUE(RunAndRender(Format::kText, *writer, [&](trace::Writer& records) {
                return records.WriteText(CriticalPathRecords());
              }).ok());
  ASSERT_TRUE(Render(CriticalPathRecords(), Format::kText, &saved).ok());
  EXPECT_EQ(direct, saved);
}

TEST(Report, AStreamWithoutAnalysisRecordsIsNothingUsable) {
  std::string out;
  EXPECT_EQ(Render(kHeader, Format::kText, &out).code(), StatusCode::kNothing);
  EXPECT_EQ(out, "");
}

TEST(Report, AStageFailureRendersNothing) {
  std::string out;
  auto writer = trace::TextOutput(&out);
  const Status s = RunAndRender(Format::kText, *writer, [](trace::Writer&) { return InputError("broken"); });
  EXPECT_EQ(s.message(), "broken");
  EXPECT_EQ(out, "");
}

TEST(Format, ShortFunctionKeepsClassAndMethod) {
  EXPECT_EQ(ShortFunction("LAMMPS_NS::PairLJCut::compute(int, int)"), "PairLJCut::compute");
  EXPECT_EQ(ShortFunction("heavy_kernel"), "heavy_kernel");
  EXPECT_EQ(ShortFunction("std::vector<double, std::allocator<double> >::operator[](unsigned long)"),
            "vector::operator[]");
  EXPECT_EQ(ShortFunction("Foo::operator()(int) const"), "Foo::operator()");
  EXPECT_EQ(ShortFunction("ns::Stream::operator<<(int)"), "Stream::operator<<");
  EXPECT_EQ(ShortFunction("(anonymous namespace)::Solve(double*)"), "(anonymous namespace)::Solve");
  EXPECT_EQ(ShortFunction("void ns::Kernel<3>(double*)"), "ns::Kernel");
  EXPECT_EQ(ShortFunction("?"), "?");
  EXPECT_EQ(ShortFunction("apply_operator(double*, int)"), "apply_operator");
  EXPECT_EQ(ShortFunction("ns::operator"), "ns::operator");
}

TEST(Format, NaturalLessComparesNumbersAsNumbers) {
  EXPECT_TRUE(NaturalLess("h2", "h10"));
  EXPECT_FALSE(NaturalLess("h10", "h2"));
  EXPECT_TRUE(NaturalLess("leaf1", "leaf1-port2"));
  EXPECT_TRUE(NaturalLess("h02", "h2"));  // equal numbers: the text decides
  EXPECT_FALSE(NaturalLess("h2", "h2"));
  EXPECT_TRUE(NaturalLess("a9b", "a10a"));
}

// Cells by hand: 1 us columns from the first send at 5 us; a send 130 us
// later does not fit 120 columns, so they double to 2 us, then 4 us... and
// the first cells merge.
TEST(LatencyGrid, ColumnsDoubleToFitAndCellsMerge) {
  LatencyGrid g;
  g.Add("h1", 5000, 2000, false);
  g.Add("h1", 5500, 4000, false);
  g.Add("h1", 6200, -1, true);
  ASSERT_EQ(g.cells().at("h1").size(), 2u);
  EXPECT_EQ(g.width(), 1000);
  EXPECT_EQ(g.cells().at("h1").at(0).complete, 2);
  EXPECT_EQ(g.cells().at("h1").at(0).latency, 6000);
  EXPECT_EQ(g.cells().at("h1").at(1).drops, 1);
  g.Add("h2", 5000 + 130000, 1000, false);  // column 130: widths 2 us (col 65) fit
  EXPECT_EQ(g.width(), 2000);
  EXPECT_EQ(g.Columns(), std::make_pair(int64_t{0}, int64_t{65}));
  const LatencyGrid::Cell& merged = g.cells().at("h1").at(0);
  EXPECT_EQ(merged.paths, 3);
  EXPECT_EQ(merged.complete, 2);
  EXPECT_EQ(merged.most, 4000);
  EXPECT_EQ(merged.drops, 1);
  g.Add("h2", 5000 - 1000, 1000, false);  // before the origin: column -1
  EXPECT_EQ(g.Columns(), std::make_pair(int64_t{-1}, int64_t{65}));
  g.Add("h2", 5000 - 120000, 1000, false);  // column -60: span 126 > 120, widths 4 us
  EXPECT_EQ(g.width(), 4000);
  EXPECT_EQ(g.Columns(), std::make_pair(int64_t{-30}, int64_t{32}));
}

// The report of rp-hops' records: the dominant hop is the largest share of
// devices and links, drop sites name the device, senders sort naturally.
TEST(Report, NetworkAsText) {
  const std::string stream = std::string(kHeader) +
      R"({"type":"hop_summary","kind":"device","device":"leaf1","packets":10,"drops":2,"p50":5000,"p90":9000,"p99":9900,"max":10000,"total":40000,"share":0.5})" "\n"
      R"({"type":"hop_summary","kind":"device","device":"h1","packets":8,"drops":0,"p50":100,"p90":100,"p99":100,"max":100,"total":800,"share":0.01})" "\n"
      R"({"type":"hop_summary","kind":"link","device":"leaf1","port":3,"peer":"h1","packets":8,"p50":1200,"p90":1200,"p99":1200,"max":1200,"total":9600,"share":0.12})" "\n"
      R"({"type":"hop_summary","kind":"sender","sender":"h10","packets":5,"drops":1,"complete":4})" "\n"
      R"({"type":"hop_summary","kind":"sender","sender":"h2","packets":5,"drops":1,"complete":4})" "\n"
      R"({"type":"hop_summary","kind":"run","packets":10,"drops":2,"complete":8,"p50":9000,"p90":12000,"p99":12000,"max":12000,"gaps":0,"loops":0,"duplicates":3})" "\n";
  std::string text;
  ASSERT_TRUE(Render(stream, Format::kText, &text).ok());
  EXPECT_NE(text.find("network: 10 marked packets from 2 senders; 8 complete, 2 dropped"), std::string::npos) << text;
  EXPECT_NE(text.find("dominant hop: device leaf1 holds 50.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("drop sites: leaf1 2 (20.0% of the packets reaching it)"), std::string::npos) << text;
  EXPECT_NE(text.find("3 tuples logged twice"), std::string::npos) << text;
  EXPECT_LT(text.find("\nh2 "), text.find("\nh10 ")) << text;
  std::string html;
  ASSERT_TRUE(Render(stream, Format::kHtml, &html).ok());
  EXPECT_NE(html.find("No hop_path records"), std::string::npos);
}

}  // namespace
}  // namespace rp::report
