#include "lib/window/window.h"

#include <gtest/gtest.h>

#include "lib/trace/codec.h"
#include "lib/trace/testing.h"

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace rp::window {
namespace {

std::string Header(int ranks) {
  return R"({"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":)" + std::to_string(ranks) +
         "}\n" + R"({"type":"comm","id":0,"size":)" + std::to_string(ranks) + R"(,"ranks":[)" +
         (ranks == 2 ? "0,1" : "0,1,2") + "]}\n";
}

std::string Mpi(int rank, int seq, const std::string& fn, int t0, int t1, const std::string& extra = "",
                int comm = 0) {
  return R"({"type":"mpi","rank":)" + std::to_string(rank) + R"(,"seq":)" + std::to_string(seq) +
         R"(,"fn":")" + fn + R"(","t0":)" + std::to_string(t0) + R"(,"t1":)" + std::to_string(t1) +
         R"(,"comm":)" + std::to_string(comm) + extra + "}\n";
}

// `text` written to the file `name` in the test's directory, and a window
// reader on it (not started).
struct TraceReader {
  TraceReader(const std::string& name, const std::string& text, Boundaries boundaries = Boundaries::kClean,
              int64_t hold = kDefaultHoldLimit)
      : input(std::vector<std::string>{Write(name, text)}, {}), reader(input, boundaries, ReadConfig{hold, nullptr}) {}
  static std::string Write(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  trace::InputSet input;
  WindowReader reader;
};

// Reads `text` in windows; returns each window's lines.
// With `hold`, the reader's hold limit; `report` receives its hold report.
std::vector<std::vector<std::string>> Windows(const std::string& text,
                                              Boundaries boundaries = Boundaries::kClean,
                                              int64_t hold = kDefaultHoldLimit, InputReport* report = nullptr) {
  TraceReader trace("window.ndjson", text, boundaries, hold);
  WindowReader& reader = trace.reader;
  EXPECT_TRUE(reader.Start().ok());
  std::vector<std::vector<std::string>> out;
  Window w;
  trace::LineDecoder decoder;
  trace::Record record;
  for (;;) {
    auto more = reader.Next(&w);
    EXPECT_TRUE(more.ok()) << more.status().message();
    if (!more.ok() || !*more) break;
    std::vector<std::string> lines;
    size_t events = 0;
    for (size_t i = 0; i < w.lines.size(); ++i) {
      const Line& r = w.lines[i];
      lines.emplace_back(w.text(r));
      if (r.event < 0) continue;
      // Events are the mpi records in input order, each pointing back.
      EXPECT_EQ(r.event, static_cast<int32_t>(events++));
      EXPECT_EQ(w.events[r.event].line, i);
      const Event& e = w.events[r.event];
      EXPECT_EQ(e.rank, r.rank);
      // Its array slices hold its line's arrays.
      EXPECT_TRUE(decoder.DecodeCopy(w.text(r), &record).ok());
      const auto slice = [](const auto& all, uint32_t begin, uint32_t count) {
        return std::vector(all.begin() + begin, all.begin() + begin + count);
      };
      // (A record's absent arrays keep stale values.)
      const trace::MpiRecord& m = record.mpi;
      using Ids = std::vector<int64_t>;
      EXPECT_EQ(slice(w.ids, e.completed_begin, e.completed_count), m.has_completed() ? m.completed : Ids{});
      EXPECT_EQ(slice(w.ids, e.started_begin, e.started_count), m.has_reqs() ? m.reqs : Ids{});
      const auto resolved = slice(w.resolved, e.resolved_begin, e.resolved_count);
      EXPECT_EQ(resolved.size(), m.has_resolved() ? m.resolved.size() : 0);
      for (size_t k = 0; k < resolved.size() && k < m.resolved.size(); ++k) {
        EXPECT_EQ(resolved[k].req, m.resolved[k].req);
      }
    }
    EXPECT_EQ(w.events.size(), events);
    // The window holds the blocks of its records' lines, in serial order,
    // and their arrays and nothing more.
    size_t ids = 0, resolved = 0;
    for (const Line& r : w.lines) {
      EXPECT_TRUE(std::any_of(w.blocks.begin(), w.blocks.end(), [&](const auto& b) {
        return r.text >= b->bytes.data() && r.text + r.length <= b->bytes.data() + b->bytes.size();
      })) << w.text(r);
    }
    for (size_t i = 1; i < w.blocks.size(); ++i) EXPECT_LT(w.blocks[i - 1]->serial, w.blocks[i]->serial);
    for (const Event& e : w.events) ids += e.completed_count + e.started_count, resolved += e.resolved_count;
    EXPECT_EQ(w.ids.size(), ids);
    EXPECT_EQ(w.resolved.size(), resolved);
    out.push_back(lines);
    EXPECT_EQ(w.index, static_cast<int64_t>(out.size()) - 1);
  }
  if (report != nullptr) *report = reader.input_report();
  return out;
}

std::string Strip(const std::string& line) { return line.substr(0, line.size() - 1); }

TEST(Window, CutsAtEachCleanWorldBarrier) {
  const std::string a0 = Mpi(0, 0, "MPI_Send", 10, 20, R"(,"peer":1,"tag":1,"bytes":8)");
  const std::string a1 = Mpi(1, 0, "MPI_Recv", 5, 25, R"(,"peer":0,"tag":1,"bytes":8)");
  const std::string b0 = Mpi(0, 1, "MPI_Barrier", 30, 50);
  const std::string b1 = Mpi(1, 1, "MPI_Barrier", 40, 50);
  const std::string c0 = Mpi(0, 2, "MPI_Allreduce", 60, 80, R"(,"bytes":8)");
  const std::string c1 = Mpi(1, 2, "MPI_Allreduce", 70, 80, R"(,"bytes":8)");
  const std::string d0 = Mpi(0, 3, "MPI_Finalize", 90, 95);
  const std::string sample = R"({"type":"sample","rank":1,"t":55,"stack":[]})" "\n";
  const auto w = Windows(Header(2) + a1 + a0 + b0 + b1 + sample + c0 + c1 + d0);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], (std::vector<std::string>{Strip(a1), Strip(a0), Strip(b0), Strip(b1)}));
  EXPECT_EQ(w[1], (std::vector<std::string>{Strip(sample), Strip(c0), Strip(c1)}));
  EXPECT_EQ(w[2], (std::vector<std::string>{Strip(d0)}));
}

TEST(Window, ActiveRequestOrMessageInFlightKeepsTheWindowOpen) {
  // Rank 1's Irecv is still active at the barrier: not a boundary. At the
  // second barrier rank 0's eager Send is not yet received (rank 1 receives
  // after it): not a boundary either. The third one is clean.
  const std::string text =
      Header(2) + Mpi(1, 0, "MPI_Irecv", 1, 2, R"(,"peer":0,"tag":1,"bytes":8,"req":0)") +
      Mpi(0, 0, "MPI_Barrier", 3, 6) + Mpi(1, 1, "MPI_Barrier", 4, 6) +
      Mpi(0, 1, "MPI_Send", 7, 8, R"(,"peer":1,"tag":1,"bytes":8)") +
      Mpi(1, 2, "MPI_Wait", 7, 9, R"(,"completed":[0])") +
      Mpi(0, 2, "MPI_Send", 10, 11, R"(,"peer":1,"tag":2,"bytes":8)") +
      Mpi(0, 3, "MPI_Barrier", 12, 14) + Mpi(1, 3, "MPI_Barrier", 12, 14) +
      Mpi(1, 4, "MPI_Recv", 15, 16, R"(,"peer":0,"tag":2,"bytes":8)") +
      Mpi(0, 4, "MPI_Barrier", 17, 19) + Mpi(1, 5, "MPI_Barrier", 18, 19) +
      Mpi(0, 5, "MPI_Finalize", 20, 21);
  // Window 0: rank 0's Barrier, Send, Send, Barrier, Barrier and rank 1's
  // Irecv, Barrier, Wait, Barrier, Recv, Barrier; window 1: the Finalize.
  const auto w = Windows(text);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].size(), 11u);
  EXPECT_EQ(w[1].size(), 1u);
  // Cut at every synchronization, each barrier ends a window: each rank's
  // records up to it (rank 1's Recv comes after its second barrier).
  const auto every = Windows(text, Boundaries::kEverySync);
  ASSERT_EQ(every.size(), 4u);
  EXPECT_EQ(every[0].size(), 3u);  // Irecv, Barrier, Barrier
  EXPECT_EQ(every[1].size(), 5u);  // Send, Wait, Send, Barrier, Barrier
  EXPECT_EQ(every[2].size(), 3u);  // Recv, Barrier, Barrier
  EXPECT_EQ(every[3].size(), 1u);  // Finalize
}

// Ranks whose clocks run ahead deliver records of later windows before
// the slower ranks finish the current one. The window still holds its
// records in input order when its first boundary is not clean.
TEST(Window, RecordsOfRanksRunningAheadKeepInputOrder) {
  const std::string irecv = Mpi(1, 0, "MPI_Irecv", 1, 2, R"(,"peer":0,"tag":1,"bytes":8,"req":0)");
  const std::string barrier0 = Mpi(0, 0, "MPI_Barrier", 3, 6);
  const std::string send = Mpi(0, 1, "MPI_Send", 7, 8, R"(,"peer":1,"tag":1,"bytes":8)");
  const std::string test = Mpi(1, 1, "MPI_Test", 8, 9, R"(,"completed":[9],"resolved":[{"req":9}])");
  const std::string comm = R"({"type":"comm","id":5,"size":1,"ranks":[0]})" "\n";
  const std::string barrier0b = Mpi(0, 2, "MPI_Barrier", 9, 12);
  const std::string barrier1 = Mpi(1, 2, "MPI_Barrier", 10, 13);
  const std::string wait =
      Mpi(1, 3, "MPI_Wait", 14, 15, R"(,"completed":[0],"resolved":[{"req":0,"peer":0,"tag":1,"bytes":8}])");
  const std::string barrier1b = Mpi(1, 4, "MPI_Barrier", 16, 17);
  const std::string end0 = Mpi(0, 3, "MPI_Finalize", 18, 19);
  const std::string end1 = Mpi(1, 5, "MPI_Finalize", 18, 19);
  const std::string text =
      Header(2) + irecv + barrier0 + send + comm + test + barrier0b + barrier1 + wait + barrier1b + end0 + end1;
  // Rank 1's Irecv is active at the first barrier: the window goes on to
  // the second, and takes rank 0's records after its first barrier, which
  // came before rank 1's.
  const auto w = Windows(text);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], (std::vector<std::string>{Strip(irecv), Strip(barrier0), Strip(send), Strip(comm), Strip(test),
                                            Strip(barrier0b), Strip(barrier1), Strip(wait), Strip(barrier1b)}));
  EXPECT_EQ(w[1], (std::vector<std::string>{Strip(end0), Strip(end1)}));
  // Cut at every synchronization, the comm record joins the first window.
  const auto every = Windows(text, Boundaries::kEverySync);
  ASSERT_EQ(every.size(), 3u);
  EXPECT_EQ(every[0],
            (std::vector<std::string>{Strip(irecv), Strip(barrier0), Strip(comm), Strip(test), Strip(barrier1)}));
  EXPECT_EQ(every[1], (std::vector<std::string>{Strip(send), Strip(barrier0b), Strip(wait), Strip(barrier1b)}));
}

// A record without "completed" completes nothing, even right after one
// that completed the same request id (the decoder reuses its record).
TEST(Window, OnlyRecordsWithCompletedIdsCompleteRequests) {
  const std::string text = Header(2) + Mpi(0, 0, "MPI_Irecv", 1, 2, R"(,"peer":1,"tag":1,"bytes":8,"req":0)") +
                           Mpi(1, 0, "MPI_Send", 2, 3, R"(,"peer":0,"tag":1,"bytes":8)") +
                           Mpi(0, 1, "MPI_Wait", 3, 4, R"(,"completed":[0])") +
                           Mpi(1, 1, "MPI_Isend", 4, 5, R"(,"peer":0,"tag":2,"bytes":8,"req":0)") +
                           Mpi(0, 2, "MPI_Recv", 5, 6, R"(,"peer":1,"tag":2,"bytes":8)") +
                           Mpi(0, 3, "MPI_Barrier", 6, 8) + Mpi(1, 2, "MPI_Barrier", 7, 8) +
                           Mpi(1, 3, "MPI_Wait", 9, 11, R"(,"completed":[0])") +
                           Mpi(0, 4, "MPI_Barrier", 12, 14) + Mpi(1, 4, "MPI_Barrier", 13, 14);
  // Rank 1's Isend is active at the first barrier (its message arrived):
  // one window.
  const auto w = Windows(text);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].size(), 10u);
}

// Request ids of other producers may be large or negative (the table keeps
// small ones in a vector, others in a map): the same cuts for every id.
TEST(Window, RequestIdsOfAnySizeAreTracked) {
  for (const std::string id : {"0", "4095", "4096", "1099511627776", "-7"}) {
    const std::string text =
        Header(2) + Mpi(1, 0, "MPI_Irecv", 1, 2, R"(,"peer":0,"tag":1,"bytes":8,"req":)" + id) +
        Mpi(0, 0, "MPI_Barrier", 3, 6) + Mpi(1, 1, "MPI_Barrier", 4, 6) +
        Mpi(0, 1, "MPI_Send", 7, 8, R"(,"peer":1,"tag":1,"bytes":8)") +
        Mpi(1, 2, "MPI_Wait", 7, 9, R"(,"completed":[)" + id + "]") +
        Mpi(1, 3, "MPI_Recv_init", 10, 11, R"(,"peer":0,"tag":2,"bytes":8,"req":)" + id) +
        Mpi(0, 2, "MPI_Barrier", 12, 14) + Mpi(1, 4, "MPI_Barrier", 12, 14) +
        Mpi(1, 5, "MPI_Start", 15, 16, R"(,"req":)" + id) +
        Mpi(0, 3, "MPI_Barrier", 17, 19) + Mpi(1, 6, "MPI_Barrier", 17, 19) +
        Mpi(1, 7, "MPI_Request_free", 20, 21, R"(,"req":)" + id) +
        Mpi(0, 4, "MPI_Barrier", 22, 24) + Mpi(1, 8, "MPI_Barrier", 22, 24);
    // The Irecv is active at the first barrier and its message in flight
    // until the Wait: the first cut is at the second barrier. The started
    // persistent receive is active at the third barrier, freed (never
    // completed: still active) before the fourth, which is clean.
    const auto w = Windows(text);
    ASSERT_EQ(w.size(), 2u) << id;
    EXPECT_EQ(w[0].size(), 8u) << id;
    EXPECT_EQ(w[1].size(), 6u) << id;
  }
}

// The error the reader gives for `text`, or "" when it reads to the end.
std::string ReadError(const std::string& text) {
  TraceReader trace("window_error.ndjson", text);
  WindowReader& reader = trace.reader;
  Status status = reader.Start();
  Window w;
  while (status.ok()) {
    auto more = reader.Next(&w);
    if (!more.ok()) status = more.status();
    else if (!*more) break;
  }
  return status.ok() ? "" : status.message();
}

TEST(Window, RanksAndMpiIntsOutOfRangeAreErrors) {
  EXPECT_EQ(ReadError(Header(2) + Mpi(5, 0, "MPI_Barrier", 1, 2)), "");  // beyond the header: stages warn
  EXPECT_EQ(ReadError(Header(2) + Mpi(1 << 30, 0, "MPI_Barrier", 1, 2)),
            ::testing::TempDir() + "/window_error.ndjson:3: mpi record has rank 1073741824, outside 0..1048575");
  EXPECT_EQ(ReadError(Header(2) + Mpi(1, 0, "MPI_Send", 1, 2, R"(,"peer":0,"tag":4294967297)")),
            ::testing::TempDir() +
                "/window_error.ndjson:3: mpi record field \"tag\" = 4294967297 does not fit 32 bits (rank 1, seq 0)");
  EXPECT_NE(ReadError(Header(2) + R"({"type":"sample","rank":-1,"t":55,"stack":[]})" "\n"), "");
  EXPECT_EQ(ReadError(Header(2) + Mpi(1, 0, "MPI_Send", 1, 2, R"(,"peer":0,"tag":2147483647)")), "");
}

TEST(Window, SubCommunicatorCollectivesDoNotCut) {
  std::string text = Header(3) + R"({"type":"comm","id":1,"size":2,"ranks":[0,1]})" "\n";
  text += Mpi(0, 0, "MPI_Barrier", 1, 2, "", 1);
  text += Mpi(1, 0, "MPI_Barrier", 1, 2, "", 1);
  text += Mpi(2, 0, "MPI_Finalize", 3, 4);
  EXPECT_EQ(Windows(text).size(), 1u);
}

TEST(Window, NoSynchronizationIsOneWindow) {
  const auto w = Windows(Header(2) + Mpi(0, 0, "MPI_Send", 1, 2, R"(,"peer":1,"tag":0)") +
                         Mpi(1, 0, "MPI_Recv", 1, 3, R"(,"peer":0,"tag":0)"));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].size(), 2u);
}

TEST(Window, PersistentRequestsCountOnlyWhileStarted) {
  // A persistent receive created before the barrier but not started is not
  // active; started after it, it is.
  const std::string text =
      Header(2) + Mpi(1, 0, "MPI_Recv_init", 1, 2, R"(,"peer":0,"tag":1,"bytes":8,"req":0)") +
      Mpi(0, 0, "MPI_Barrier", 3, 5) + Mpi(1, 1, "MPI_Barrier", 3, 5) +
      Mpi(1, 2, "MPI_Start", 6, 7, R"(,"req":0)") +
      Mpi(0, 1, "MPI_Send", 6, 7, R"(,"peer":1,"tag":1,"bytes":8)") +
      Mpi(0, 2, "MPI_Barrier", 8, 10) + Mpi(1, 3, "MPI_Barrier", 8, 10) +
      Mpi(1, 4, "MPI_Wait", 11, 12, R"(,"completed":[0])") +
      Mpi(0, 3, "MPI_Barrier", 13, 15) + Mpi(1, 5, "MPI_Barrier", 13, 15);
  // Cut at the first barrier (Recv_init, 2 Barriers), not at the second
  // (the receive is active), again at the third: Start, Send, 2 Barriers,
  // Wait, 2 Barriers.
  const auto w = Windows(text);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].size(), 3u);
  EXPECT_EQ(w[1].size(), 7u);
}

TEST(Window, RanksThatDeliveredAllTheirEventsDoNotHoldBoundaries) {
  // Rank 2 died after its one call (its rank record says 1 event); ranks 0
  // and 1 go on synchronizing, and their barriers still end windows.
  const std::string ranks = R"({"type":"rank","rank":0,"events":4})" "\n"
                            R"({"type":"rank","rank":1,"events":3})" "\n"
                            R"({"type":"rank","rank":2,"events":1})" "\n";
  const std::string text =
      Header(3) + ranks + Mpi(2, 0, "MPI_Send", 1, 2, R"(,"peer":0,"tag":1)") +
      Mpi(0, 0, "MPI_Recv", 1, 3, R"(,"peer":2,"tag":1)") + Mpi(0, 1, "MPI_Barrier", 4, 6) +
      Mpi(1, 0, "MPI_Barrier", 5, 6) + Mpi(0, 2, "MPI_Barrier", 7, 9) + Mpi(1, 1, "MPI_Barrier", 8, 9) +
      Mpi(0, 3, "MPI_Finalize", 10, 11) + Mpi(1, 2, "MPI_Finalize", 10, 12);
  const auto w = Windows(text);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].size(), 4u);
  EXPECT_EQ(w[1].size(), 2u);
  EXPECT_EQ(w[2].size(), 2u);
  // Without the rank records nothing says rank 2 is done: one window.
  EXPECT_EQ(Windows(Header(3) + text.substr(Header(3).size() + ranks.size())).size(), 1u);
  // A count too small is reported: rank 1 has 3 events, not 2.
  InputReport report;
  const std::string short_count = R"({"type":"rank","rank":1,"events":2})" "\n";
  Windows(Header(3) + short_count + text.substr(Header(3).size() + ranks.size()), Boundaries::kClean,
          kDefaultHoldLimit, &report);
  EXPECT_EQ(report.beyond_count, 1);
  EXPECT_EQ(report.first_beyond_count, "rank 1 seq 2");
}

TEST(Window, RanksSilentForTheHoldLimitAreGivenUp) {
  // Rank 2 of 3 calls the first barrier, then nothing (and no rank record
  // says it is done): it holds every later boundary, until it has been
  // silent for the hold limit.
  std::string text = Header(3) + Mpi(0, 0, "MPI_Barrier", 0, 5) + Mpi(1, 0, "MPI_Barrier", 1, 5) +
                     Mpi(2, 0, "MPI_Barrier", 2, 5);
  for (int i = 1; i < 20; ++i) {
    text += Mpi(0, i, "MPI_Barrier", 10 * i, 10 * i + 5) + Mpi(1, i, "MPI_Barrier", 10 * i + 1, 10 * i + 5);
  }
  InputReport report;
  auto w = Windows(text, Boundaries::kClean, kDefaultHoldLimit, &report);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1].size(), 38u);  // everything after the first barrier, held to the end
  EXPECT_EQ(report.given_up, 0);
  EXPECT_TRUE(report.Warnings(kDefaultHoldLimit).empty());
  // With a limit of 4 records it is given up (at record 9: looked at every
  // 3 records, the ranks; its barrier was record 5), and from then on
  // each barrier ends a window again.
  w = Windows(text, Boundaries::kClean, 4, &report);
  ASSERT_EQ(w.size(), 20u);
  for (size_t i = 1; i < w.size(); ++i) EXPECT_EQ(w[i].size(), 2u) << i;
  EXPECT_EQ(report.given_up, 1);
  EXPECT_EQ(report.first_given_up, 2);
  EXPECT_EQ(report.late_records, 0);
  EXPECT_EQ(report.Warnings(4).size(), 1u);
  // A rank record that counts rank 2's events says they will come: the
  // reader waits for them, whatever the limit.
  const std::string counted = R"({"type":"rank","rank":2,"events":5})" "\n";
  w = Windows(Header(3) + counted + text.substr(Header(3).size()), Boundaries::kClean, 4, &report);
  EXPECT_EQ(w.size(), 2u);
  EXPECT_EQ(report.given_up, 0);
  // Its records, when they come at last, go into the window being read.
  const std::string late = Mpi(2, 1, "MPI_Barrier", 12, 15);
  w = Windows(text + late, Boundaries::kClean, 4, &report);
  ASSERT_EQ(w.size(), 21u);
  EXPECT_EQ(w.back(), std::vector<std::string>{Strip(late)});
  EXPECT_EQ(report.late_records, 1);
  EXPECT_EQ(report.Warnings(4).size(), 2u);
}

TEST(Window, WindowsThatCannotEndCleanEndAtTheHoldLimit) {
  // Rank 0's Isend is never completed: no barrier after it is clean.
  std::string text = Header(2) + Mpi(0, 0, "MPI_Isend", 1, 2, R"(,"peer":1,"tag":1,"req":0)") +
                     Mpi(1, 0, "MPI_Recv", 1, 3, R"(,"peer":0,"tag":1)");
  for (int i = 1; i <= 6; ++i) {
    text += Mpi(0, i, "MPI_Barrier", 10 * i, 10 * i + 5) + Mpi(1, i, "MPI_Barrier", 10 * i + 1, 10 * i + 5);
  }
  InputReport report;
  EXPECT_EQ(Windows(text, Boundaries::kClean, kDefaultHoldLimit, &report).size(), 1u);
  EXPECT_EQ(report.unclean_cuts, 0);
  // With a limit of 4 records a window ends at the first synchronization
  // both ranks complete once it holds 4: at barrier 1 (the Isend, the
  // Recv and both barrier-1 calls), then every 2 barriers; barrier 6 is
  // the rest of the stream.
  const auto w = Windows(text, Boundaries::kClean, 4, &report);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].size(), 4u);
  EXPECT_EQ(w[1].size(), 4u);
  EXPECT_EQ(w[2].size(), 4u);
  EXPECT_EQ(w[3].size(), 2u);
  EXPECT_EQ(report.unclean_cuts, 3);
  EXPECT_EQ(report.first_unclean_cut, 1);
  EXPECT_EQ(report.Warnings(4).size(), 1u);
}

TEST(Window, CancelledReceivesReceiveNothing) {
  // Rank 1 posts a receive no one sends to, cancels it and waits for it
  // (as the collector records MPI_Cancel): the barrier after is clean.
  const std::string text = Header(2) + Mpi(1, 0, "MPI_Irecv", 1, 2, R"(,"peer":0,"tag":9,"req":1)") +
                           Mpi(1, 1, "MPI_Cancel", 3, 4, R"(,"req":1)") +
                           Mpi(1, 2, "MPI_Wait", 5, 6, R"(,"completed":[1])") + Mpi(0, 0, "MPI_Barrier", 7, 9) +
                           Mpi(1, 3, "MPI_Barrier", 8, 9) + Mpi(0, 1, "MPI_Finalize", 10, 11) +
                           Mpi(1, 4, "MPI_Finalize", 10, 11);
  EXPECT_EQ(Windows(text).size(), 2u);
}

TEST(Window, RanksNamedByCommRecordsHoldBoundaries) {
  // No "ranks" in the header, and the trace sorted by rank: rank 1's
  // records come after rank 0 has passed both barriers. (No message: one
  // in flight would keep the windows open anyway.)
  const std::string header = R"({"type":"header","schema":"rp-trace/1","producer":["test"]})" "\n";
  const std::string comm = R"({"type":"comm","id":0,"size":2,"ranks":[0,1]})" "\n";
  const std::string events = Mpi(0, 0, "MPI_Init", 1, 2) + Mpi(0, 1, "MPI_Barrier", 3, 6) +
                             Mpi(0, 2, "MPI_Barrier", 7, 9) + Mpi(1, 0, "MPI_Init", 1, 3) +
                             Mpi(1, 1, "MPI_Barrier", 5, 6) + Mpi(1, 2, "MPI_Barrier", 8, 9);
  // The comm record names rank 1: windows wait for it.
  InputReport report;
  auto w = Windows(header + comm + events, Boundaries::kClean, kDefaultHoldLimit, &report);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].size(), 4u);  // MPI_Init and the first barrier of both ranks
  EXPECT_EQ(report.late_ranks, 0);
  // Nothing names it: windows end at rank 0's barriers, and rank 1 is
  // reported as late, with its records.
  w = Windows(header + events, Boundaries::kClean, kDefaultHoldLimit, &report);
  EXPECT_EQ(report.late_ranks, 1);
  EXPECT_EQ(report.first_late_rank, 1);
  EXPECT_EQ(report.late_records, 3);
  EXPECT_EQ(report.Warnings(kDefaultHoldLimit).size(), 2u);
}

TEST(Window, RecordsOfTheNextWindowKeepTheirTextAndArrays) {
  // Rank 1 runs ahead: its Irecv and Waitall after the barrier are read
  // before rank 0 reaches the barrier, so they wait in the reader while
  // window 0 is handed out, and must arrive in window 1 with their
  // completed ids and resolved statuses.
  const std::string irecv = Mpi(1, 1, "MPI_Irecv", 6, 7, R"(,"peer":-1,"tag":-1,"bytes":8,"req":4)");
  const std::string waitall =
      Mpi(1, 2, "MPI_Waitall", 8, 12, R"(,"completed":[4],"resolved":[{"req":4,"peer":0,"tag":3,"bytes":8}])");
  const std::string text = Header(2) + Mpi(1, 0, "MPI_Barrier", 1, 5) + irecv + waitall +
                           Mpi(0, 0, "MPI_Barrier", 4, 5) + Mpi(0, 1, "MPI_Send", 9, 10, R"(,"peer":1,"tag":3,"bytes":8)") +
                           Mpi(0, 2, "MPI_Barrier", 13, 15) + Mpi(1, 3, "MPI_Barrier", 14, 15);
  TraceReader trace("carried.ndjson", text);
  WindowReader& reader = trace.reader;
  ASSERT_TRUE(reader.Start().ok());
  Window w;
  ASSERT_TRUE(*reader.Next(&w));
  ASSERT_EQ(w.lines.size(), 2u);  // the two first barriers
  EXPECT_EQ(w.text(w.lines[1]), Strip(Mpi(0, 0, "MPI_Barrier", 4, 5)));
  ASSERT_EQ(w.events.size(), 2u);
  EXPECT_EQ(w.lines[1].event, 1);
  EXPECT_EQ(w.events[1].line, 1u);
  EXPECT_EQ(w.events[1].rank, 0);
  EXPECT_EQ(w.by_rank[0], (std::vector<uint32_t>{1}));
  ASSERT_TRUE(*reader.Next(&w));
  ASSERT_EQ(w.events.size(), 5u);
  EXPECT_EQ(w.text(w.lines[0]), Strip(irecv));
  EXPECT_EQ(w.text(w.lines[1]), Strip(waitall));
  for (size_t i = 0; i < w.lines.size(); ++i) EXPECT_EQ(w.events[w.lines[i].event].line, i);
  const Event& done = w.events[w.lines[1].event];
  ASSERT_EQ(done.completed_count, 1u);
  EXPECT_EQ(w.ids[done.completed_begin], 4);
  ASSERT_EQ(done.resolved_count, 1u);
  EXPECT_EQ(w.resolved[done.resolved_begin].peer, 0);
  EXPECT_EQ(w.resolved[done.resolved_begin].tag, 3);
  EXPECT_EQ(w.by_rank[1], (std::vector<uint32_t>{0, 1, 4}));
  EXPECT_FALSE(*reader.Next(&w));
}

// by_rank lists each rank's events by seq, in input order where seqs tie;
// a rank seen first late in the window (more ranks than seen so far) and
// ranks whose events came out of seq order (a non-monotone clock) alike.
// A window spanning two inputs is handed out after the first input's
// reader is gone (its memory free for the second's): the lines it read
// still read as written, from the blocks the window holds. The first input
// fills several blocks.
TEST(Window, KeepsTheLinesOfAnInputAlreadyClosed) {
  const std::string header = Header(2);
  const std::string comm = header.substr(header.find('\n') + 1);
  std::string first = header, second = header;
  std::vector<std::string> expected;
  for (int i = 0; i < 4000; ++i) {
    if (i == 3000) expected.push_back(Strip(comm));  // the second input's comm record joins the window
    const std::string send = Mpi(0, i, "MPI_Send", 10 * i, 10 * i + 5, R"(,"peer":1,"tag":1,"bytes":8)");
    const std::string recv = Mpi(1, i, "MPI_Recv", 10 * i, 10 * i + 6, R"(,"peer":0,"tag":1,"bytes":8)");
    (i < 3000 ? first : second) += send + recv;
    expected.push_back(Strip(send));
    expected.push_back(Strip(recv));
  }
  for (int rank : {0, 1}) {
    const std::string barrier = Mpi(rank, 4000, "MPI_Barrier", 50000, 50010);
    second += barrier;
    expected.push_back(Strip(barrier));
  }
  trace::InputSet input(
      std::vector<std::string>{TraceReader::Write("first.ndjson", first), TraceReader::Write("second.ndjson", second)},
      {});
  WindowReader reader(input);
  ASSERT_TRUE(reader.Start().ok());
  Window w;
  ASSERT_TRUE(*reader.Next(&w));
  std::vector<std::string> lines;
  for (const Line& r : w.lines) lines.emplace_back(w.text(r));
  EXPECT_EQ(lines, expected);
  EXPECT_GT(w.blocks.size(), 2u);
}

// A split trace's parts interleave their blocks: each window still holds
// every block its lines lie in, once, in serial order, and reads as the
// merged trace does.
TEST(Window, ReadsASplitTraceAsTheMergedOne) {
  std::string text = R"({"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":4})" "\n"
                     R"({"type":"comm","id":0,"size":4,"ranks":[0,1,2,3]})" "\n";
  for (int i = 0; i < 3000; ++i) {
    const bool barrier = i % 500 == 499;
    for (int rank = 0; rank < 4; ++rank) {
      const std::string message = R"(,"peer":)" + std::to_string(rank ^ 1) + R"(,"tag":1,"bytes":8)";
      text += Mpi(rank, 2 * i, barrier ? "MPI_Barrier" : "MPI_Send", 100 * i + rank, 100 * i + 10,
                  barrier ? "" : message);
    }
    for (int rank = 0; rank < 4 && !barrier; ++rank) {
      text += Mpi(rank, 2 * i + 1, "MPI_Recv", 100 * i + 20 + rank, 100 * i + 30,
                  R"(,"peer":)" + std::to_string(rank ^ 1) + R"(,"tag":1,"bytes":8)");
    }
  }
  auto read = [](const std::string& path) {
    trace::InputSet input(std::vector<std::string>{path}, {});
    WindowReader reader(input);
    EXPECT_TRUE(reader.Start().ok());
    std::vector<std::vector<std::string>> windows;
    Window w;
    while (*reader.Next(&w)) {
      auto& lines = windows.emplace_back();
      for (const Line& line : w.lines) {
        lines.emplace_back(w.text(line));
        const bool held = std::any_of(w.blocks.begin(), w.blocks.end(), [&](const auto& block) {
          return line.text >= block->bytes.data() && line.text + line.length <= block->bytes.data() + block->bytes.size();
        });
        EXPECT_TRUE(held) << lines.back();
      }
      for (size_t i = 1; i < w.blocks.size(); ++i) EXPECT_LT(w.blocks[i - 1]->serial, w.blocks[i]->serial);
    }
    return windows;
  };
  const auto merged = read(TraceReader::Write("split-merged.ndjson", text));
  ASSERT_EQ(merged.size(), 6u);
  EXPECT_EQ(read(trace::WriteSplit("split", text, {{0, 0}, {1, 2}, {3, 3}})), merged);
}

TEST(Window, ByRankListsEachRanksEventsInSeqOrder) {
  const std::string text = Header(3) + Mpi(2, 1, "compute", 1, 2) + Mpi(0, 0, "compute", 3, 4) +
                           Mpi(2, 0, "compute", 5, 6) + Mpi(0, 1, "compute", 7, 8) + Mpi(2, 2, "compute", 9, 10) +
                           Mpi(1, 5, "compute", 11, 12) + Mpi(1, 5, "compute", 13, 14) + Mpi(1, 4, "compute", 15, 16);
  TraceReader trace("by_rank.ndjson", text);
  WindowReader& reader = trace.reader;
  ASSERT_TRUE(reader.Start().ok());
  Window w;
  ASSERT_TRUE(*reader.Next(&w));
  ASSERT_EQ(w.by_rank.size(), 3u);
  EXPECT_EQ(w.by_rank[0], (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(w.by_rank[1], (std::vector<uint32_t>{7, 5, 6}));
  EXPECT_EQ(w.by_rank[2], (std::vector<uint32_t>{2, 0, 4}));
  EXPECT_FALSE(*reader.Next(&w));
}

}  // namespace
}  // namespace rp::window
