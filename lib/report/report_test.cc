#include "lib/report/format.h"
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

}  // namespace
}  // namespace rp::report
