// The OTF2 importer on small archives written here with OTF2's own writer,
// whose records are worked out by hand: time conversion, peers and roots
// on a reordered communicator, a posted receive filled from its
// completion, computation as exact samples, a local MPI call, a thread
// location and a metric event skipped with counts, and an archive of no
// MPI program refused.
#include "lib/otf2/import.h"

#include <gtest/gtest.h>
#include <otf2/otf2.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lib/otf2/library.h"
#include "lib/trace/testing.h"

namespace rp::otf2 {
namespace {

using trace::RecordType;


// Regions of the archive.
enum : OTF2_RegionRef { kSolve, kIrecv, kWait, kSend, kCommRank, kBcast, kInit, kFinalize, kRegions };

// Ticks: 2 per ns from an offset of 1000, so ns = (ticks - 1000) / 2.
constexpr uint64_t T(int64_t ns) { return 1000 + 2 * static_cast<uint64_t>(ns); }

// Writes the archive into `dir`; `mpi`: with the MPI COMM_LOCATIONS group.
void WriteArchive(const std::string& dir, bool mpi) {
  OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 4 * 1024 * 1024,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  ASSERT_NE(archive, nullptr);
  OTF2_Archive_SetFlushCallbacks(archive, &kFlushCallbacks, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_SetCreator(archive, "hand-written");
  OTF2_Archive_OpenEvtFiles(archive);
  OTF2_EvtWriter* r0 = OTF2_Archive_GetEvtWriter(archive, 0);
  OTF2_EvtWriter* r1 = OTF2_Archive_GetEvtWriter(archive, 1);
  OTF2_EvtWriter* thread = OTF2_Archive_GetEvtWriter(archive, 2);
  // Rank 0: Init; in solve(): MPI_Comm_rank, Irecv, Wait (from rank 1 on
  // the reversed communicator), a metric, Bcast rooted at world rank 0.
  OTF2_EvtWriter_Enter(r0, nullptr, T(0), kInit);
  OTF2_EvtWriter_Leave(r0, nullptr, T(100), kInit);
  OTF2_EvtWriter_Enter(r0, nullptr, T(100), kSolve);
  OTF2_EvtWriter_Enter(r0, nullptr, T(150), kCommRank);
  OTF2_EvtWriter_Leave(r0, nullptr, T(200), kCommRank);
  OTF2_EvtWriter_Enter(r0, nullptr, T(300), kIrecv);
  OTF2_EvtWriter_MpiIrecvRequest(r0, nullptr, T(300), 7);
  OTF2_EvtWriter_Leave(r0, nullptr, T(350), kIrecv);
  OTF2_Type type = OTF2_TYPE_UINT64;
  OTF2_MetricValue value;
  value.unsigned_int = 42;
  OTF2_EvtWriter_Metric(r0, nullptr, T(400), 0, 1, &type, &value);
  OTF2_EvtWriter_Enter(r0, nullptr, T(500), kWait);
  OTF2_EvtWriter_MpiIrecv(r0, nullptr, T(700), 0, 1, 5, 64, 7);  // comm 1 rank 0 = world rank 1
  OTF2_EvtWriter_Leave(r0, nullptr, T(700), kWait);
  OTF2_EvtWriter_Enter(r0, nullptr, T(800), kBcast);
  OTF2_EvtWriter_MpiCollectiveBegin(r0, nullptr, T(800));
  OTF2_EvtWriter_MpiCollectiveEnd(r0, nullptr, T(1000), OTF2_COLLECTIVE_OP_BCAST, 1, 1, 8, 0);
  OTF2_EvtWriter_Leave(r0, nullptr, T(1000), kBcast);
  OTF2_EvtWriter_Leave(r0, nullptr, T(1100), kSolve);
  OTF2_EvtWriter_Enter(r0, nullptr, T(1200), kFinalize);
  OTF2_EvtWriter_Leave(r0, nullptr, T(1300), kFinalize);
  // Rank 1: Init, Send to comm 1 rank 1 (world rank 0), Bcast.
  OTF2_EvtWriter_Enter(r1, nullptr, T(0), kInit);
  OTF2_EvtWriter_Leave(r1, nullptr, T(100), kInit);
  OTF2_EvtWriter_Enter(r1, nullptr, T(400), kSend);
  OTF2_EvtWriter_MpiSend(r1, nullptr, T(400), 1, 1, 5, 64);
  OTF2_EvtWriter_Leave(r1, nullptr, T(500), kSend);
  OTF2_EvtWriter_Enter(r1, nullptr, T(600), kBcast);
  OTF2_EvtWriter_MpiCollectiveBegin(r1, nullptr, T(600));
  OTF2_EvtWriter_MpiCollectiveEnd(r1, nullptr, T(1000), OTF2_COLLECTIVE_OP_BCAST, 1, 1, 0, 8);
  OTF2_EvtWriter_Leave(r1, nullptr, T(1000), kBcast);
  OTF2_EvtWriter_Enter(r1, nullptr, T(1200), kFinalize);
  OTF2_EvtWriter_Leave(r1, nullptr, T(1300), kFinalize);
  // A second thread of rank 0: not a rank.
  OTF2_EvtWriter_Enter(thread, nullptr, T(150), kSolve);
  OTF2_EvtWriter_Leave(thread, nullptr, T(250), kSolve);
  const uint64_t events[] = {19, 11, 2};
  for (OTF2_EvtWriter* w : {r0, r1, thread}) OTF2_Archive_CloseEvtWriter(archive, w);
  OTF2_Archive_CloseEvtFiles(archive);
  OTF2_Archive_OpenDefFiles(archive);
  for (uint64_t loc = 0; loc < 3; ++loc) OTF2_Archive_CloseDefWriter(archive, OTF2_Archive_GetDefWriter(archive, loc));
  OTF2_Archive_CloseDefFiles(archive);

  OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive);
  OTF2_GlobalDefWriter_WriteClockProperties(defs, 2000000000, 1000, 3000, OTF2_UNDEFINED_TIMESTAMP);
  const char* strings[] = {"",         "solve",         "s.c",      "MPI_Irecv",   "MPI_Wait", "MPI_Send",
                           "MPI_Comm_rank", "MPI_Bcast", "MPI_Init", "MPI_Finalize", "machine",  "node7",
                           "thread",   "MPI_COMM_WORLD", "split",    "counter"};
  for (uint32_t i = 0; i < std::size(strings); ++i) OTF2_GlobalDefWriter_WriteString(defs, i, strings[i]);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, 11, 10, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (uint32_t g = 0; g < 2; ++g) {
    OTF2_GlobalDefWriter_WriteLocationGroup(defs, g, 12, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
  }
  OTF2_GlobalDefWriter_WriteLocation(defs, 0, 12, OTF2_LOCATION_TYPE_CPU_THREAD, events[0], 0);
  OTF2_GlobalDefWriter_WriteLocation(defs, 1, 12, OTF2_LOCATION_TYPE_CPU_THREAD, events[1], 1);
  OTF2_GlobalDefWriter_WriteLocation(defs, 2, 12, OTF2_LOCATION_TYPE_CPU_THREAD, events[2], 0);
  OTF2_GlobalDefWriter_WriteRegion(defs, kSolve, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                   OTF2_REGION_FLAG_NONE, 2, 10, 20);
  for (OTF2_RegionRef r = kIrecv; r < kRegions; ++r) {
    OTF2_GlobalDefWriter_WriteRegion(defs, r, 2 + r, 2 + r, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
  }
  const uint64_t locations[] = {0, 1}, world[] = {0, 1}, reversed[] = {1, 0};
  OTF2_GlobalDefWriter_WriteGroup(defs, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                  mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_MEASUREMENT_SYSTEM, OTF2_GROUP_FLAG_NONE, 2,
                                  locations);
  OTF2_GlobalDefWriter_WriteGroup(defs, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2,
                                  world);
  OTF2_GlobalDefWriter_WriteGroup(defs, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2,
                                  reversed);
  OTF2_GlobalDefWriter_WriteComm(defs, 0, 13, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_GlobalDefWriter_WriteComm(defs, 1, 14, 2, 0, OTF2_COMM_FLAG_NONE);
  const OTF2_MetricMemberRef member = 0;
  OTF2_GlobalDefWriter_WriteMetricMember(defs, 0, 15, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                         OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 0);
  OTF2_GlobalDefWriter_WriteMetricClass(defs, 0, 1, &member, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU);
  ASSERT_EQ(OTF2_Archive_Close(archive), OTF2_SUCCESS);
}

class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/rp-otf2-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ImportTest, RecordsWorkedOutByHand) {
  WriteArchive(dir_, true);
  std::string text;
  auto out = trace::TextOutput(&text);
  auto counts = Import(dir_, *out);
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  ASSERT_TRUE(out->Close().ok());
  EXPECT_EQ(counts->ranks, 2);
  EXPECT_EQ(counts->mpi, 9);
  EXPECT_EQ(counts->local_calls, 1);  // MPI_Comm_rank
  EXPECT_EQ(counts->skipped_locations, 1);
  EXPECT_EQ(counts->skipped_location_events, 2);
  EXPECT_EQ(counts->skipped.at("metric events"), 1);
  EXPECT_EQ(counts->creator, "hand-written");

  std::map<int64_t, trace::SiteRecord> sites;
  std::vector<trace::MpiRecord> calls;
  std::vector<trace::SampleRecord> samples;
  std::vector<int64_t> times;  // of mpi and sample records, in stream order
  for (const trace::Record& r : trace::Records(text)) {
    if (r.type == RecordType::kHeader) {
      EXPECT_EQ(r.header.clock, "global");
      EXPECT_EQ(r.header.ranks, 2);
      EXPECT_EQ(r.header.order, "time");
    } else if (r.type == RecordType::kSite) {
      sites[r.site.id] = r.site;
    } else if (r.type == RecordType::kMpi) {
      calls.push_back(r.mpi);
      times.push_back(r.mpi.t0);
    } else if (r.type == RecordType::kSample) {
      samples.push_back(r.sample);
      times.push_back(r.sample.t);
    } else if (r.type == RecordType::kRank) {
      EXPECT_EQ(r.rank.host, "node7");
    }
  }
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  std::map<std::pair<int64_t, int64_t>, trace::MpiRecord> by;
  for (const auto& m : calls) by[{m.rank, m.seq}] = m;
  auto call = [&](int64_t rank, int64_t seq) -> const trace::MpiRecord& { return by[{rank, seq}]; };
  ASSERT_EQ(by.size(), 9u);
  // Rank 0.
  const auto& irecv = call(0, 1);
  EXPECT_EQ(irecv.fn, "MPI_Irecv");
  EXPECT_EQ(irecv.t0, 300);
  EXPECT_EQ(irecv.t1, 350);
  EXPECT_EQ(irecv.req, 7);
  EXPECT_EQ(irecv.peer, 1);  // rank 0 of the reversed communicator
  EXPECT_EQ(irecv.tag, 5);
  EXPECT_EQ(irecv.bytes, 64);
  EXPECT_EQ(irecv.comm, 1);
  EXPECT_EQ(sites.at(irecv.site).fn, "solve");
  EXPECT_EQ(sites.at(irecv.site).file, "s.c");
  EXPECT_EQ(sites.at(irecv.site).line, 10);
  const auto& wait = call(0, 2);
  EXPECT_EQ(wait.fn, "MPI_Wait");
  EXPECT_EQ(wait.completed, std::vector<int64_t>({7}));
  EXPECT_NE(wait.site, irecv.site);  // (solve, MPI_Wait): another call site
  const auto& bcast0 = call(0, 3);
  EXPECT_EQ(bcast0.fn, "MPI_Bcast");
  EXPECT_EQ(bcast0.root, 0);  // rank 1 of the reversed communicator
  EXPECT_EQ(bcast0.bytes, 8);
  EXPECT_EQ(bcast0.rbytes, 0);
  EXPECT_EQ(call(0, 4).fn, "MPI_Finalize");
  EXPECT_FALSE(sites.at(call(0, 4).site).has_fn());  // called outside any user region
  // Rank 1.
  const auto& send = call(1, 1);
  EXPECT_EQ(send.fn, "MPI_Send");
  EXPECT_EQ(send.t0, 400);
  EXPECT_EQ(send.t1, 500);
  EXPECT_EQ(send.peer, 0);
  EXPECT_EQ(send.comm, 1);
  EXPECT_EQ(call(1, 2).root, 0);
  EXPECT_EQ(call(1, 2).rbytes, 8);
  // Computation in solve() on rank 0, from MPI_Init's return to MPI_Finalize:
  // 100..300 (MPI_Comm_rank included), 350..500, 700..800, 1000..1100.
  std::vector<std::pair<int64_t, int64_t>> got;
  for (const auto& s : samples) {
    EXPECT_EQ(s.rank, 0);
    EXPECT_EQ(s.stack, std::vector<int64_t>({0}));
    got.emplace_back(s.t, s.weight);
  }
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, int64_t>>{{300, 200}, {500, 150}, {800, 100}, {1100, 100}}));
}

TEST_F(ImportTest, NotAnMpiProgram) {
  WriteArchive(dir_, false);
  std::string text;
  auto out = trace::TextOutput(&text);
  auto counts = Import(dir_ + "/traces.otf2", *out);
  ASSERT_FALSE(counts.ok());
  EXPECT_EQ(counts.status().exit_code(), 2);
  EXPECT_NE(counts.status().message().find("no MPI ranks"), std::string::npos) << counts.status().message();
}

TEST_F(ImportTest, NotAnArchive) {
  std::string text;
  auto out = trace::TextOutput(&text);
  auto counts = Import(dir_, *out);
  ASSERT_FALSE(counts.ok());
  EXPECT_NE(counts.status().message().find("cannot read the OTF2 anchor file"), std::string::npos);
}

}  // namespace
}  // namespace rp::otf2
