#include <gtest/gtest.h>

#include <string>

#include "lib/perfetto/export.h"
#include "lib/perfetto/trace_reader.h"
#include "lib/perfetto/trace_writer.h"
#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::perfetto {
namespace {

using window::TestHeader;
using window::TestMpi;

const Track* FindTrack(const DecodedTrace& t, const std::string& name) {
  for (const Track& track : t.tracks) {
    if (track.name == name) return &track;
  }
  return nullptr;
}

std::vector<const Slice*> SlicesOn(const DecodedTrace& t, const std::string& track_name) {
  std::vector<const Slice*> out;
  const Track* track = FindTrack(t, track_name);
  if (track == nullptr) return out;
  for (const Slice& s : t.slices) {
    if (s.track == track->uuid) out.push_back(&s);
  }
  return out;
}

TEST(TraceWriter, SlicesFlowsAndInternedDataReadBack) {
  std::string bytes;
  TraceWriter w(trace::StringOutput(&bytes));
  const uint64_t root = w.Track("root", 0, 0, true);
  const uint64_t a = w.Track("a", root, 1, false), b = w.Track("b", root, 0, false), c = w.Track("c", a, 0, false);
  const TraceWriter::Arg args[] = {{w.Name("peer"), 1}, {w.Name("tag"), -5}};
  const uint64_t flow[] = {7};
  w.DefaultTrack(2, a);
  TraceWriter::Slice send;
  send.name = w.Name("MPI_Send");
  send.location = w.Location("x.c", "main", 12);
  send.args = args;
  send.flows = flow;
  w.Begin(2, c, 90, {.name = w.Name("main")});  // not the default track
  w.Begin(2, a, 100, send);
  w.End(2, a, 150);
  w.End(2, c, 140);  // earlier than the sequence's previous event
  TraceWriter::Slice recv;
  recv.name = w.Name("MPI_Recv");
  recv.terminating_flows = flow;
  w.Begin(3, b, 120, recv);
  w.End(3, b, 180);
  ASSERT_TRUE(w.Close().ok());

  Expected<DecodedTrace> t = DecodeTrace(bytes);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->tracks.size(), 4u);
  EXPECT_TRUE(FindTrack(*t, "root")->explicit_children);
  EXPECT_EQ(FindTrack(*t, "a")->order, 1);
  EXPECT_EQ(FindTrack(*t, "c")->parent, a);
  ASSERT_EQ(t->slices.size(), 3u);
  const std::vector<const Slice*> on_a = SlicesOn(*t, "a");
  ASSERT_EQ(on_a.size(), 1u);
  EXPECT_EQ(on_a[0]->name, "MPI_Send");
  EXPECT_EQ(on_a[0]->ts, 100);
  EXPECT_EQ(on_a[0]->dur, 50);
  EXPECT_EQ(on_a[0]->file, "x.c");
  EXPECT_EQ(on_a[0]->function, "main");
  EXPECT_EQ(on_a[0]->line, 12);
  ASSERT_EQ(on_a[0]->args.size(), 2u);
  EXPECT_EQ(on_a[0]->args[1], (std::pair<std::string, int64_t>{"tag", -5}));
  EXPECT_EQ(on_a[0]->flows, std::vector<uint64_t>{7});
  const std::vector<const Slice*> on_c = SlicesOn(*t, "c");
  ASSERT_EQ(on_c.size(), 1u);
  EXPECT_EQ(on_c[0]->name, "main");
  EXPECT_EQ(on_c[0]->ts, 90);
  EXPECT_EQ(on_c[0]->dur, 50);
  const std::vector<const Slice*> on_b = SlicesOn(*t, "b");
  ASSERT_EQ(on_b.size(), 1u);
  EXPECT_EQ(on_b[0]->terminating_flows, std::vector<uint64_t>{7});
  EXPECT_EQ(on_b[0]->ts, 120);
}

TEST(TraceWriter, ManyEventsGoInSeveralBundles) {
  std::string bytes;
  TraceWriter w(trace::StringOutput(&bytes));
  const uint64_t track = w.Track("r", 0, 0, false);
  const int kSlices = 40000;
  for (int i = 0; i < kSlices; ++i) {
    w.Begin(2, track, int64_t{1000} * i + (i % 7), {.name = w.Name(i % 2 ? "MPI_Send" : "MPI_Recv")});
    w.End(2, track, int64_t{1000} * i + 500);
  }
  ASSERT_TRUE(w.Close().ok());
  Expected<DecodedTrace> t = DecodeTrace(bytes);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_GE(t->bundles, 2);
  ASSERT_EQ(t->slices.size(), static_cast<size_t>(kSlices));
  EXPECT_EQ(t->slices[kSlices - 1].ts, int64_t{1000} * (kSlices - 1) + (kSlices - 1) % 7);
  EXPECT_EQ(t->slices[kSlices - 1].name, "MPI_Send");
  // Small deltas and repeated fields: far below the ~10 bytes a slice takes.
  EXPECT_LT(bytes.size(), static_cast<size_t>(kSlices) * 4);
}

TEST(TraceReader, RefusesDamagedFiles) {
  EXPECT_FALSE(DecodeTrace("\x0a\x05\x01").ok());           // packet longer than the file
  EXPECT_FALSE(DecodeTrace(std::string("\x0a\x02\x92\x03", 4)).ok());  // bundle that is not zlib
}

// Two ranks: rank 0 computes in main > work, sends to rank 1, computes in
// main alone; rank 1 waits in MPI_Recv. Worked out by hand below.
const std::string kSites =
    R"({"type":"site","id":1,"fn":"main","file":"a.c","line":5})" "\n"
    R"({"type":"site","id":2,"fn":"work","file":"a.c","line":9})" "\n"
    R"({"type":"site","id":3,"fn":"main","file":"a.c","line":7})" "\n";

std::string TwoRanks(const std::string& phase0 = "", const std::string& phase1 = "") {
  return TestHeader(2) + kSites + TestMpi(0, 0, "MPI_Init", 0, 10, phase0) + TestMpi(1, 0, "MPI_Init", 0, 10, phase0) +
         R"({"type":"sample","rank":0,"t":50,"stack":[2,1],"weight":40})" "\n" +
         TestMpi(1, 1, "MPI_Recv", 50, 200, R"(,"peer":0,"tag":3,"bytes":8,"site":3)" + phase1) +
         R"({"type":"sample","rank":0,"t":90,"stack":[2,1],"weight":40})" "\n" +
         TestMpi(0, 1, "MPI_Send", 100, 110, R"(,"peer":1,"tag":3,"bytes":8,"site":3)" + phase0) +
         R"({"type":"sample","rank":0,"t":200,"stack":[1],"weight":90})" "\n" +
         TestMpi(1, 2, "MPI_Finalize", 210, 220, phase1) + TestMpi(0, 2, "MPI_Finalize", 300, 310, phase1) +
         R"({"type":"cp_segment","rank":0,"t0":10,"t1":100,"kind":"compute","length":90,"site":3})" "\n"
         R"({"type":"cp_segment","rank":0,"t0":100,"t1":110,"kind":"mpi","call":"MPI_Send","length":10,"site":3})" "\n"
         R"({"type":"cp_segment","rank":1,"t0":110,"t1":200,"kind":"transfer","peer":0,"length":90})" "\n";
}

Expected<DecodedTrace> Convert(const std::string& text, const ExportOptions& options, ExportCounts* counts) {
  std::string bytes;
  trace::InputSet in = trace::TextInput(text);
  Expected<ExportCounts> c = Export(in, trace::StringOutput(&bytes), options);
  if (!c.ok()) return c.status();
  *counts = *c;
  return DecodeTrace(bytes);
}

TEST(Export, CallsMessagesCodeAndPathOnTheirTracks) {
  ExportCounts counts;
  Expected<DecodedTrace> t = Convert(TwoRanks(), ExportOptions{}, &counts);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(counts.ranks, 2);
  EXPECT_EQ(counts.calls, 6);
  EXPECT_EQ(counts.flows, 1);
  EXPECT_EQ(counts.path_steps, 3);
  EXPECT_EQ(counts.clipped, 0);
  const Track* root = FindTrack(*t, "MPI run, 2 ranks");
  ASSERT_NE(root, nullptr);
  EXPECT_TRUE(root->explicit_children);
  ASSERT_NE(FindTrack(*t, "critical path"), nullptr);
  EXPECT_EQ(FindTrack(*t, "critical path")->order, -1);
  EXPECT_EQ(FindTrack(*t, "rank 1")->order, 1);
  EXPECT_EQ(FindTrack(*t, "rank 0 code")->parent, FindTrack(*t, "rank 0")->uuid);
  EXPECT_EQ(FindTrack(*t, "rank 1 code"), nullptr);  // no samples

  const auto r0 = SlicesOn(*t, "rank 0");
  ASSERT_EQ(r0.size(), 3u);
  EXPECT_EQ(r0[1]->name, "MPI_Send");
  EXPECT_EQ(r0[1]->ts, 100);
  EXPECT_EQ(r0[1]->dur, 10);
  EXPECT_EQ(r0[1]->function, "main");
  EXPECT_EQ(r0[1]->line, 7);
  const std::vector<std::pair<std::string, int64_t>> args = {{"peer", 1}, {"tag", 3}, {"bytes", 8}, {"seq", 1}};
  EXPECT_EQ(r0[1]->args, args);
  ASSERT_EQ(r0[1]->flows.size(), 1u);
  const auto r1 = SlicesOn(*t, "rank 1");
  ASSERT_EQ(r1.size(), 3u);
  EXPECT_EQ(r1[1]->name, "MPI_Recv");
  EXPECT_EQ(r1[1]->terminating_flows, r0[1]->flows);

  // (10, 100] is main > work by both samples; (110, 300] main by one:
  // main stays open across MPI_Send, work ends where the send begins.
  const auto code = SlicesOn(*t, "rank 0 code");
  ASSERT_EQ(code.size(), 2u);
  EXPECT_EQ(code[0]->name, "main");
  EXPECT_EQ(code[0]->ts, 10);
  EXPECT_EQ(code[0]->dur, 290);
  EXPECT_EQ(code[1]->name, "work");
  EXPECT_EQ(code[1]->ts, 10);
  EXPECT_EQ(code[1]->dur, 90);
  EXPECT_EQ(code[1]->depth, 1);

  const auto path = SlicesOn(*t, "critical path");
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0]->name, "rank 0 compute");
  EXPECT_EQ(path[1]->name, "rank 0 MPI_Send");
  EXPECT_EQ(path[2]->name, "rank 0\u21921 transfer");
  EXPECT_EQ(path[2]->ts, 110);
  EXPECT_EQ(path[2]->dur, 90);
  EXPECT_EQ(path[2]->args, (std::vector<std::pair<std::string, int64_t>>{{"length", 90}}));
}

TEST(Export, TimeWindowKeepsWhatOverlapsIt) {
  ExportOptions options;
  options.begin = 95;
  options.end = 150;
  ExportCounts counts;
  Expected<DecodedTrace> t = Convert(TwoRanks(), options, &counts);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(counts.calls, 2);  // MPI_Send [100, 110] and MPI_Recv [50, 200]
  EXPECT_EQ(counts.flows, 1);
  const auto code = SlicesOn(*t, "rank 0 code");
  ASSERT_EQ(code.size(), 2u);
  EXPECT_EQ(code[0]->ts, 95);   // clipped to the window
  EXPECT_EQ(code[0]->dur, 55);  // main from 95 to 150
  EXPECT_EQ(code[1]->dur, 5);   // work from 95 to 100
  const auto path = SlicesOn(*t, "critical path");
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0]->ts, 95);
  EXPECT_EQ(path[2]->ts + path[2]->dur, 150);
}

TEST(Export, PhaseKeepsItsRecordsAndCountsMessagesLeavingIt) {
  ExportOptions options;
  options.phase = 1;
  ExportCounts counts;
  Expected<DecodedTrace> t = Convert(TwoRanks(R"(,"phase":0)", R"(,"phase":1)"), options, &counts);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(counts.calls, 3);  // MPI_Recv and both MPI_Finalize
  EXPECT_EQ(counts.flows, 0);
  EXPECT_EQ(counts.flows_cut, 1);  // sent in phase 0
  EXPECT_EQ(SlicesOn(*t, "rank 0").size(), 1u);
}

}  // namespace
}  // namespace rp::perfetto
