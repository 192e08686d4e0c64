// RemoteSides over threads as processes: on a generated run with samples,
// late senders and barrier waits, split between 1-4 processes, every wait
// state of every process's ranks gets the pattern, delayer and delay cost
// (functions and propagated part) the one-process Delay gives it, the
// delayer's side asked of its holder where another process reads it.
#include "lib/diagnose/distributed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lib/diagnose/path_records.h"
#include "lib/dist/local_comm.h"
#include "lib/graph/imbalance.h"
#include "lib/graph/window_graphs.h"
#include "lib/match/testing.h"
#include "lib/phases/phases.h"
#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::diagnose {
namespace {

// `ranks` (even) ranks, `iterations` iterations: each rank computes
// (sampled in work_a on odd ranks, work_b on even ones; rank it % ranks
// three times longer), even ranks send to the odd rank after them, odd
// ranks receive (a late sender when the sender computed longer), then
// all meet at a barrier.
std::string LateSenders(int ranks, int iterations) {
  std::string text = window::TestHeader(ranks);
  text += R"({"type":"site","id":1,"fn":"main","file":"a.c","line":5})" "\n"
          R"({"type":"site","id":2,"fn":"work_a","file":"a.c","line":9})" "\n"
          R"({"type":"site","id":3,"fn":"work_b","file":"a.c","line":12})" "\n"
          R"({"type":"site","id":4,"fn":"main","file":"a.c","line":20})" "\n"
          R"({"type":"site","id":5,"fn":"main","file":"a.c","line":21})" "\n"
          R"({"type":"site","id":6,"fn":"main","file":"a.c","line":22})" "\n";
  struct Line {
    int64_t t;
    int rank;
    std::string text;
  };
  std::vector<Line> lines;
  std::vector<int> seq(ranks, 0);
  std::vector<int64_t> free(ranks, 0);  // each rank's last call's exit
  auto call = [&](int r, const std::string& fn, int64_t t0, int64_t t1, const std::string& extra) {
    lines.push_back({t0, r, window::TestMpi(r, seq[r]++, fn, t0, t1, extra)});
    free[r] = t1;
  };
  for (int r = 0; r < ranks; ++r) call(r, "MPI_Init", 0, 10, "");
  for (int it = 0; it < iterations; ++it) {
    std::vector<int64_t> done(ranks);
    for (int r = 0; r < ranks; ++r) {
      const int64_t compute = 100 + 10 * r + (r == it % ranks ? 300 : 0);
      const int64_t t = free[r] + compute / 2;
      lines.push_back({t, r, R"({"type":"sample","rank":)" + std::to_string(r) + R"(,"t":)" + std::to_string(t) +
                                 R"(,"stack":[)" + (r % 2 ? "2" : "3") + R"(,1],"weight":)" +
                                 std::to_string(compute) + "}\n"});
      done[r] = free[r] + compute;
    }
    for (int r = 0; r + 1 < ranks; r += 2) {
      const std::string tag = R"(,"tag":)" + std::to_string(it) + R"(,"bytes":8)";
      call(r, "MPI_Send", done[r], done[r] + 5, R"(,"peer":)" + std::to_string(r + 1) + tag + R"(,"site":4)");
      call(r + 1, "MPI_Recv", done[r + 1], std::max(done[r + 1], done[r]) + 10,
           R"(,"peer":)" + std::to_string(r) + tag + R"(,"site":5)");
    }
    int64_t last = 0;
    for (int r = 0; r < ranks; ++r) last = std::max(last, free[r] + 5);
    for (int r = 0; r < ranks; ++r) call(r, "MPI_Barrier", free[r] + 5, last + 5, R"(,"site":6)");
  }
  for (int r = 0; r < ranks; ++r) call(r, "MPI_Finalize", free[r] + 5, free[r] + 10, "");
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return std::pair(a.t, a.rank) < std::pair(b.t, b.rank);
  });
  for (const Line& l : lines) text += l.text;
  return text;
}

// LateSenders tagged by rp-phases ("" if it fails).
std::string PhasedLateSenders(int ranks, int iterations) {
  const trace::StageOutput phased = trace::RunStage(
      [](trace::InputSet& in, trace::Writer& out) { return phases::Run(phases::Config{}, in, out); },
      LateSenders(ranks, iterations));
  EXPECT_TRUE(phased.status.ok()) << phased.status.message();
  return phased.status.ok() ? phased.text : std::string();
}

// The figures of the run one process measures, phase by phase as they end.
void MeasureOneProcess(const window::TestWindows& whole, Figures& figures, std::vector<PhaseFigures>* ended) {
  ASSERT_TRUE(figures.NoteRecords(whole.dict).ok());
  for (const window::Window& w : whole.windows) {
    graph::WindowGraph wg;
    wg.window = w;
    wg.Build(whole.dict);
    ASSERT_TRUE(figures.AddWindow(wg, ended).ok());
  }
  figures.Finish(ended);
}

std::string Name(const window::Event& e) { return std::to_string(e.rank) + "." + std::to_string(e.seq); }

std::string Describe(const profile::Attribution& attribution, const window::Event& delayer, Pattern p,
                     const DelayCost& cost) {
  std::string out = std::string(PatternName(p)) + " by " + Name(delayer) + ":";
  for (const auto& [function, ns] : cost.functions) {
    out += " " + attribution.tree().functions()[function] + "=" + std::to_string(ns);
  }
  return out + " +" + std::to_string(cost.propagated);
}

// Every waiting call of the ranks `local` says, by name, with its cost.
using Costs = std::map<std::string, std::string>;

// One process's windows built into graphs, with the run's start and each
// window's computations attributed.
void ForEachWindowGraph(const window::TestWindows& whole, profile::Attribution& attribution,
                        const std::function<void(graph::WindowGraph& wg, int64_t run_start)>& each) {
  int64_t run_start = 0;
  bool started = false;
  for (const window::Window& w : whole.windows) {
    graph::WindowGraph wg;
    wg.window = w;
    wg.Build(whole.dict);
    if (!started && wg.graph.events() > 0) started = true, run_start = wg.graph.application_start();
    attribution.ForgetBefore(INT64_MAX);
    ASSERT_TRUE(attribution.AddWindow(wg.window, run_start).ok());
    each(wg, run_start);
  }
}

// The same on process comm.rank() of the split trace at `index`: the
// graph built distributed, the run's start the least over the processes.
void ForEachWindowGraphAcross(dist::Comm& comm, const std::string& index, profile::Attribution& attribution,
                              const std::function<void(const match::Owners&, graph::WindowGraph& wg,
                                                       const match::Ghosts& ghosts, int64_t run_start)>& each) {
  int64_t run_start = 0;
  bool started = false;
  match::ForEachWindowAcross(comm, index, [&](const match::Owners& owners, window::Window& w,
                                              const match::Matching& m, const match::Ghosts& ghosts) {
    graph::WindowGraph wg;
    std::swap(wg.window, w);
    wg.matching = m;
    wg.graph = graph::Graph(wg.window, wg.matching, true);
    wg.times = graph::SplitCalls(wg.graph, wg.matching);
    match::RunStartAcross(comm, wg.window.events.empty() ? INT64_MAX : wg.graph.application_start(), &started, &run_start);
    attribution.ForgetBefore(INT64_MAX);
    ASSERT_TRUE(attribution.AddWindow(wg.window, run_start).ok());
    each(owners, wg, ghosts, run_start);
    std::swap(wg.window, w);
  });
}

TEST(RemoteSides, DelayCostsAreTheOneProcessCosts) {
  const std::string text = LateSenders(6, 6);
  const window::TestWindows whole = window::ReadWindows(text);
  Costs expected;
  {
    profile::Attribution attribution(whole.dict);
    ForEachWindowGraph(whole, attribution, [&](graph::WindowGraph& wg, int64_t) {
      WaitStates states;
      states.Find(wg);
      for (uint32_t e = 0; e < wg.window.events.size(); ++e) {
        if (states.pattern[e] == Pattern::kNone) continue;
        const uint32_t d = states.delayer[e];
        const int64_t wait = wg.times[e].wait_before;
        expected[Name(wg.window.events[e])] =
            Describe(attribution, wg.window.events[d], states.pattern[e], Delay(wg.graph, attribution, e, d, wait));
      }
    });
  }
  ASSERT_GT(expected.size(), 20u);
  for (const std::vector<std::pair<int, int>>& groups :
       {std::vector<std::pair<int, int>>{{0, 2}, {3, 5}}, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}}) {
    const std::string index = trace::WriteSplit("delays", text, groups);
    for (int processes : {1, 2, 3, 4}) {
      std::mutex mu;
      Costs got;
      int64_t remote = 0;
      dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
        profile::Attribution attribution(whole.dict);
        Costs mine;
        int64_t asked = 0;
        ForEachWindowGraphAcross(comm, index, attribution, [&](const match::Owners& owners, graph::WindowGraph& wg,
                                                              const match::Ghosts&, int64_t) {
          WaitStates states;
          states.Find(wg);
          std::vector<uint32_t> waiting, ghosts;
          for (uint32_t e = 0; e < wg.window.events.size(); ++e) {
            const window::Event& ev = wg.window.events[e];
            if (ev.ghost() || owners.Of(ev.rank) != comm.rank() || states.pattern[e] == Pattern::kNone) continue;
            waiting.push_back(e);
            if (wg.window.events[states.delayer[e]].ghost()) ghosts.push_back(states.delayer[e]);
          }
          std::vector<Side> sides;
          ASSERT_TRUE(RemoteSides(comm, owners, wg.graph, attribution, ghosts, &sides).ok());
          size_t next_remote = 0;
          for (uint32_t e : waiting) {
            const uint32_t d = states.delayer[e];
            const int64_t wait = wg.times[e].wait_before;
            const Side delayer = wg.window.events[d].ghost() ? sides[next_remote++]
                                                              : SideComputation(wg.graph, attribution, d);
            mine[Name(wg.window.events[e])] =
                Describe(attribution, wg.window.events[d], states.pattern[e],
                         DelayFrom(delayer, SideComputation(wg.graph, attribution, e), wait));
          }
          asked += static_cast<int64_t>(ghosts.size());
        });
        std::lock_guard lock(mu);
        got.insert(mine.begin(), mine.end());
        remote += asked;
      });
      EXPECT_EQ(got, expected) << processes << " processes, " << groups.size() << " parts";
      if (processes > 1) {
        EXPECT_GT(remote, 0) << "no delayer on another process: the test tests nothing";
      }
    }
  }
}

// BalanceAcross: on the same run tagged by rp-phases, the balancing
// what-if of work_a (computed on the odd ranks) for each window's phases
// saves what one process's BalanceWhatIf says, at 1-4 processes.
TEST(BalanceAcross, SavingsAreTheOneProcessSavings) {
  const std::string phased = PhasedLateSenders(6, 6);
  ASSERT_FALSE(phased.empty());
  const window::TestWindows whole = window::ReadWindows(phased);
  profile::Attribution named(whole.dict);
  const int32_t work_a = named.tree().FindFunction("work_a");
  ASSERT_GE(work_a, 0);
  const BalanceWhatIf::Share share = [&](int32_t rank, int32_t, int32_t function) {
    return function == work_a && rank % 2 == 1 ? 1.0 : 0.0;
  };
  std::vector<std::vector<int32_t>> phases_of;  // by window
  std::vector<std::vector<int64_t>> expected;   // by window
  {
    profile::Attribution attribution(whole.dict);
    BalanceWhatIf what_if;
    ForEachWindowGraph(whole, attribution, [&](graph::WindowGraph& wg, int64_t run_start) {
      std::vector<int32_t> phases;
      for (const window::Event& e : wg.window.events) {
        if (e.phase != window::kNone) phases.push_back(e.phase);
      }
      std::sort(phases.begin(), phases.end());
      phases.erase(std::unique(phases.begin(), phases.end()), phases.end());
      ASSERT_TRUE(what_if.Window(wg.graph, run_start).ok());
      auto saved = what_if.Savings(wg.graph, attribution, share, phases, work_a, run_start);
      ASSERT_TRUE(saved.ok());
      what_if.Advance(wg.graph);
      phases_of.push_back(phases);
      expected.push_back(*saved);
    });
  }
  int64_t saved_somewhere = 0;
  for (const auto& window : expected) {
    for (int64_t s : window) saved_somewhere += s != 0;
  }
  ASSERT_GT(saved_somewhere, 2);
  const std::string index = trace::WriteSplit("balance", phased, {{0, 1}, {2, 3}, {4, 5}});
  for (int processes : {1, 2, 3, 4}) {
    std::mutex mu;
    std::vector<std::vector<std::vector<int64_t>>> got(processes);
    dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
      profile::Attribution attribution(whole.dict);
      BalanceAcross across(comm);
      BalanceWhatIf what_if(&across);
      size_t window = 0;
      std::vector<std::vector<int64_t>> mine;
      ForEachWindowGraphAcross(comm, index, attribution, [&](const match::Owners&, graph::WindowGraph& wg,
                                                            const match::Ghosts& ghosts, int64_t run_start) {
        across.SetWindow(&wg.graph, &ghosts);
        ASSERT_TRUE(what_if.Window(wg.graph, run_start).ok());
        auto saved = what_if.Savings(wg.graph, attribution, share, phases_of[window], work_a, run_start);
        ASSERT_TRUE(saved.ok()) << saved.status().message();
        what_if.Advance(wg.graph);
        mine.push_back(*saved);
        ++window;
      });
      std::lock_guard lock(mu);
      got[comm.rank()] = mine;
    });
    for (int p = 0; p < processes; ++p) EXPECT_EQ(got[p], expected) << "process " << p << " of " << processes;
  }
}

// What the findings read of Figures' run-wide tables, as text: each
// site's callers, dominant function and path computation, the run's end
// and the timeline records of every cluster.
std::string Tables(const Figures& figures, const window::Dictionary& dict) {
  std::string out = "end " + std::to_string(figures.run_end()) + "\n";
  for (const trace::SiteRecord& site : dict.sites) {
    const int32_t id = static_cast<int32_t>(site.id);
    out += "site " + std::to_string(id) + ": " + std::to_string(figures.callers(id)) + " callers, function " +
           std::to_string(figures.DominantFunction(id)) + ", path";
    for (double ns : figures.PathCompute(id)) out += " " + std::to_string(ns);
    out += "\n";
  }
  trace::Writer writer(trace::StringOutput(&out));
  for (int64_t cluster = -1; cluster < 8; ++cluster) EXPECT_TRUE(figures.timeline().Write(cluster, writer).ok());
  EXPECT_TRUE(writer.Close().ok());
  return out;
}

// Figures over FiguresAcrossProcesses: on the phased run split between
// 1-4 processes, each process measures its ranks (wait states with
// delayers elsewhere, the ideal time's path sets and the balancing
// what-ifs replayed, the choice of what-ifs made on every rank's
// figures); each phase's figures merged over the processes are the
// one-process figures, field for field, and so are the run-wide tables
// (callers, dominant functions, timeline) merged into process 0's.
TEST(FiguresAcross, MergedFiguresAreTheOneProcessFigures) {
  const std::string phased = PhasedLateSenders(6, 8);
  ASSERT_FALSE(phased.empty());
  const window::TestWindows whole = window::ReadWindows(phased);
  std::vector<std::string> expected;  // by phase ended (in phase order): the packed figures
  std::string expected_tables;
  size_t what_ifs = 0, waits = 0;
  {
    Figures figures(whole.dict, 0.1);
    std::vector<PhaseFigures> ended;
    MeasureOneProcess(whole, figures, &ended);
    for (const PhaseFigures& f : ended) {
      dist::Packer out;
      PackFigures(f, &out);
      expected.push_back(out.bytes());
      what_ifs += f.what_if.size();
      waits += f.waits.size();
    }
    expected_tables = Tables(figures, whole.dict);
  }
  ASSERT_NE(expected_tables.find("\"type\":\"timeline\""), std::string::npos) << expected_tables;
  ASSERT_GT(expected.size(), 4u);
  ASSERT_GT(what_ifs, 2u) << "no balancing what-if: the test tests nothing";
  ASSERT_GT(waits, 2u);
  // Parts of 2 ranks each, and of ranks 0-4 and 5 (rank 5 never sends:
  // its process's windows hold fewer sites and ranks than the others').
  for (const auto& groups : {std::vector<std::pair<int, int>>{{0, 1}, {2, 3}, {4, 5}}, {{0, 4}, {5, 5}}}) {
  const std::string index = trace::WriteSplit("figures", phased, groups);
  for (int processes : {1, 2, 3, 4}) {
    std::mutex mu;
    std::vector<std::vector<std::string>> packed(processes);  // by process, by phase ended
    std::string tables;  // process 0's, the others' merged in
    dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
      std::vector<std::string> mine;
      std::unique_ptr<FiguresAcrossProcesses> across;
      std::unique_ptr<Figures> figures;
      std::vector<PhaseFigures> ended;
      match::ForEachWindowAcross(comm, index, [&](const match::Owners& owners, window::Window& w,
                                                  const match::Matching& m, const match::Ghosts& ghosts) {
        if (!figures) {
          across = std::make_unique<FiguresAcrossProcesses>(comm, owners);
          figures = std::make_unique<Figures>(whole.dict, 0.1, across.get());
          ASSERT_TRUE(figures->NoteRecords(whole.dict).ok());
        }
        graph::WindowGraph wg;
        std::swap(wg.window, w);
        wg.matching = m;
        wg.graph = graph::Graph(wg.window, wg.matching, true);
        wg.times = graph::SplitCalls(wg.graph, wg.matching);
        across->SetWindow(&wg.graph, &ghosts);
        const Status added = figures->AddWindow(wg, &ended);
        ASSERT_TRUE(added.ok()) << added.message();
        std::swap(wg.window, w);
      });
      ASSERT_TRUE(figures != nullptr);
      figures->Finish(&ended);
      for (const PhaseFigures& f : ended) {
        dist::Packer out;
        PackFigures(f, &out);
        mine.push_back(out.bytes());
      }
      dist::Packer own;
      figures->PackTables(&own);
      auto all = comm.Allgather(own.bytes());
      ASSERT_TRUE(all.ok());
      std::lock_guard lock(mu);
      if (comm.rank() == 0) {
        for (int p = 1; p < comm.size(); ++p) {
          dist::Unpacker in((*all)[p]);
          ASSERT_TRUE(figures->MergeTables(&in).ok());
          EXPECT_TRUE(in.done());
        }
        tables = Tables(*figures, whole.dict);
      }
      packed[comm.rank()] = std::move(mine);
    });
    // A process ends the phases its ranks had calls in (one without
    // ranks, none), merged by phase.
    std::map<int32_t, PhaseFigures> merged;
    for (int p = 0; p < processes; ++p) {
      for (const std::string& bytes : packed[p]) {
        dist::Unpacker in(bytes);
        ASSERT_TRUE(MergePacked(&in, &merged[PackedPhase(in)]).ok());
      }
    }
    std::vector<std::string> got;
    for (const auto& [phase, f] : merged) {
      dist::Packer out;
      PackFigures(f, &out);
      got.push_back(out.bytes());
    }
    ASSERT_EQ(got.size(), expected.size()) << processes << " processes";
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(got[i] == expected[i]) << "the " << i << "th phase ended, at " << processes << " processes";
    }
    EXPECT_EQ(tables, expected_tables) << processes << " processes";
  }
  }
}

// The critical path's run-wide records, as text for another process,
// are kept again as they were (every record, in order).
TEST(PathRecords, TextRoundTrip) {
  const window::TestWindows whole = window::ReadWindows(LateSenders(6, 6));
  PathSource source(whole.dict, [](const trace::CpSegmentRecord&, const StreamPlace&) {});
  for (const window::Window& w : whole.windows) {
    auto wg = std::make_unique<graph::WindowGraph>();
    wg->window = w;
    wg->Build(whole.dict);
    ASSERT_TRUE(source.AddWindow(&wg).ok());
  }
  ASSERT_TRUE(source.Finish().ok());
  const PathRecords& records = source.records();
  ASSERT_TRUE(records.summary.has_value());
  ASSERT_FALSE(records.sites.empty());
  ASSERT_FALSE(records.zeroings.empty());
  auto text = records.Text();
  ASSERT_TRUE(text.ok());
  PathRecords again;
  ASSERT_TRUE(again.KeepText(*text).ok());
  auto twice = again.Text();
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(*twice, *text);
  EXPECT_EQ(again.sites.size(), records.sites.size());
  EXPECT_EQ(again.functions.size(), records.functions.size());
  EXPECT_EQ(again.zeroings.size(), records.zeroings.size());
}

// The timeline's span budget is a share per rank, taken in the rank's own
// order: the timelines of disjoint ranks, kept apart and merged, draw what
// one timeline of every rank draws, the budget biting (two spans a rank:
// each rank's first call only).
TEST(Timeline, ShareOfEachRankMergesIntoTheWhole) {
  const int64_t ranks = Timeline::kMostSpans / 2;  // a share of 2 spans
  auto calls = [](Timeline& t, int first, int last) {
    t.See(1, 0);  // every process sees the window's phases
    for (int i = 0; i < 3; ++i) {
      for (int r = first; r <= last; ++r) t.Call(1, 0, r, 10 * i, 10 * i + 5, 0, 10 * i + 8);
    }
  };
  auto step = [](Timeline& t, int which) {  // the path's two steps, each read by one process
    if (which == 0) t.Step(1, 0, 0, 5, StreamPlace{.after = 1});
    else t.Step(1, 3, 10, 15, StreamPlace{.after = 2});
  };
  auto text = [](const Timeline& t) {
    std::string out;
    trace::Writer writer(trace::StringOutput(&out));
    EXPECT_TRUE(t.Write(0, writer).ok());
    EXPECT_TRUE(writer.Close().ok());
    return out;
  };
  Timeline whole(ranks), roomy(4);
  calls(whole, 0, 3);
  step(whole, 0), step(whole, 1);
  calls(roomy, 0, 3);
  step(roomy, 0), step(roomy, 1);
  ASSERT_NE(text(whole), text(roomy)) << "the budget did not bite: the test tests nothing";
  Timeline a(ranks), b(ranks), merged(ranks);
  calls(a, 0, 1);
  step(a, 1);  // the later step read first: merged in time order
  calls(b, 2, 3);
  step(b, 0);
  for (const Timeline* part : {&a, &b}) {
    dist::Packer out;
    part->Pack(&out);
    dist::Unpacker in(out.bytes());
    ASSERT_TRUE(merged.Merge(&in).ok());
    EXPECT_TRUE(in.done());
  }
  EXPECT_EQ(text(merged), text(whole));
}

// Every field of a phase's figures survives PackFigures and MergePacked
// (the figures of the phased run, packed again after a merge into nothing,
// give the same bytes); two processes' figures of disjoint ranks merge
// into the sums and extremes of both.
TEST(PhaseFigures, PackAndMerge) {
  const std::string phased = PhasedLateSenders(6, 6);
  ASSERT_FALSE(phased.empty());
  const window::TestWindows whole = window::ReadWindows(phased);
  Figures figures(whole.dict, 0.1);
  std::vector<PhaseFigures> ended;
  MeasureOneProcess(whole, figures, &ended);
  ASSERT_GT(ended.size(), 3u);
  size_t with_waits = 0;
  for (const PhaseFigures& f : ended) {
    with_waits += !f.waits.empty();
    dist::Packer once;
    PackFigures(f, &once);
    PhaseFigures merged;
    dist::Unpacker in(once.bytes());
    ASSERT_TRUE(MergePacked(&in, &merged).ok());
    EXPECT_TRUE(in.done());
    dist::Packer twice;
    PackFigures(merged, &twice);
    EXPECT_TRUE(twice.bytes() == once.bytes()) << "phase " << f.phase << ": a field lost in packing";
  }
  EXPECT_GT(with_waits, 0u);

  PhaseFigures a, b;
  a.phase = b.phase = 3;
  a.cluster = b.cluster = 1;
  a.t0 = 100, a.t1 = 500, a.ideal = 300, a.first_window = 2;
  b.t0 = 90, b.t1 = 400, b.ideal = 350, b.first_window = 2;
  a.ranks.resize(4), b.ranks.resize(4);
  a.ranks[0].present = a.ranks[1].present = true;
  a.ranks[0].compute = 10, a.ranks[1].compute = 11;
  b.ranks[2].present = b.ranks[3].present = true;
  b.ranks[2].compute = 12, b.ranks[3].compute = 13;
  a.functions[5] = {1, 2, 0, 0};
  b.functions[5] = {0, 0, 3, 4};
  a.sites[7].calls = 2, b.sites[7].calls = 3;
  a.sites[7].ranks = {5, 6}, b.sites[7].ranks = {0, 0, 7, 8};
  PhaseFigures merged;
  for (const PhaseFigures* part : {&a, &b}) {
    dist::Packer out;
    PackFigures(*part, &out);
    dist::Unpacker in(out.bytes());
    ASSERT_TRUE(MergePacked(&in, &merged).ok());
  }
  EXPECT_EQ(merged.t0, 90);
  EXPECT_EQ(merged.t1, 500);
  EXPECT_EQ(merged.ideal, 350);
  ASSERT_EQ(merged.ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_TRUE(merged.ranks[r].present);
    EXPECT_EQ(merged.ranks[r].compute, 10 + r);
  }
  EXPECT_EQ(merged.functions[5], (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(merged.sites[7].calls, 5);
  EXPECT_EQ(merged.sites[7].ranks, (std::vector<int64_t>{5, 6, 7, 8}));
}

}  // namespace
}  // namespace rp::diagnose
