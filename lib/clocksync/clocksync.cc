#include "lib/clocksync/clocksync.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/version.h"
#include "lib/clock/repair.h"
#include "lib/clocksync/synchronizer.h"
#include "lib/match/match.h"

namespace rp::clocksync {
namespace {

// Pass 1 of Method::kGaps: every rank's exits of global synchronizations.
}  // namespace

namespace internal {

Expected<std::vector<std::vector<clock::SyncExit>>> CollectExits(window::WindowReader& windows) {
  RP_RETURN_IF_ERROR(windows.Start());
  std::vector<std::vector<clock::SyncExit>> exits(std::max<int64_t>(windows.dictionary().ranks, 0));
  window::Window w;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, windows.Next(&w));
    if (!more) break;
    for (size_t r = 0; r < w.by_rank.size(); ++r) {
      for (uint32_t index : w.by_rank[r]) {
        const window::Event& e = w.events[index];
        if (!window::IsGlobalSync(e, windows.dictionary())) continue;
        if (r >= exits.size()) exits.resize(r + 1);
        exits[r].push_back(clock::SyncExit{e.site == window::kNone ? -1 : e.site, e.t1});
      }
    }
  }
  return exits;
}

}  // namespace internal

namespace {

// Step 2 for one window: map the times, repair, write them sorted.
Status AddWindow(internal::Synchronizer& sync, const window::Dictionary& dict, window::Window& w,
                 trace::Writer& out) {
  sync.MapTimes(w);
  RP_RETURN_IF_ERROR(sync.CheckSpan(w));
  internal::Tally& tally = sync.tally();
  const match::Matching matching = match::Match(w, dict);
  tally.Add(matching);
  clock::Constraints& constraints = sync.constraints();
  const int64_t min_latency = sync.repair_options().min_latency;
  constraints.Build(w, matching);
  if (sync.count_violations()) tally.mapped.Add(clock::CountViolations(w, constraints, min_latency));
  if (sync.config().repair) tally.Add(clock::Repair(&w, constraints, sync.repair_options(), &sync.carried_shift()));
  if (sync.count_violations()) tally.final.Add(clock::CountViolations(w, constraints, min_latency));
  return sync.WriteSorted(w, out);
}

}  // namespace

Status Run(const Config& config, trace::InputSet& input, trace::Writer& out) {
  std::vector<std::vector<clock::SyncExit>> exits;
  if (config.method == Method::kGaps) {
    window::ReadConfig quiet = config.read;
    quiet.progress = nullptr;
    window::WindowReader first_pass(input, window::Boundaries::kClean, quiet);
    RP_ASSIGN_OR_RETURN(exits, internal::CollectExits(first_pass));
    input.Rewind();
  }
  window::WindowReader windows(input, window::Boundaries::kClean, config.read);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  const int64_t ranks = CountRanks(dict);
  clock::GapsFit gaps;
  if (config.method == Method::kGaps) {
    exits.resize(ranks);
    gaps = clock::FitGaps(exits, config.gaps_tolerance);
  }
  RP_ASSIGN_OR_RETURN(Clocks clocks, ChooseClocks(dict, ranks, config.method, gaps, config.gaps_tolerance));

  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-clocksync ") + kVersion, &out,
                                          [](trace::HeaderRecord& h) { h.set_clock("global"); }));
  internal::Synchronizer sync(config, dict, std::move(clocks));
  window::Window w;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, windows.Next(&w));
    if (!more) break;
    RP_RETURN_IF_ERROR(AddWindow(sync, dict, w, out));
  }
  RP_RETURN_IF_ERROR(sync.WriteSummaries(out));
  RP_RETURN_IF_ERROR(out.Close());
  window::WarnAboutInput(windows);
  return sync.Warn();
}

}  // namespace rp::clocksync
