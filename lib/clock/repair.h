// Repairs what clock offsets leave impossible in a window: a receive that
// completes before its message was sent, a collective exit before an entry
// it waits for. A controlled-logical-clock forward pass (Rabenseifner's CLC,
// as extended to collectives by Becker et al.; diagnosis paper §2) visits
// events in an order that respects these dependencies; when a constraint is
// violated, the event's end moves to the earliest time that satisfies it and
// every later event of its rank moves by the same amount, so local intervals
// keep their lengths and each rank's order is kept. A backward amortisation
// then spreads each such jump over the time before it (the clock runs at
// most `max_slope` fast), capped so that no moved send overtakes its
// receive, so that the jump does not squeeze one local gap.
#ifndef RP_LIB_CLOCK_REPAIR_H_
#define RP_LIB_CLOCK_REPAIR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "lib/match/match.h"
#include "lib/window/window.h"

namespace rp::clock {

struct RepairOptions {
  int64_t min_latency = 0;  // ns a message takes at least
  double max_slope = 0.01;  // amortisation: fastest relative clock rate change
  bool amortize = true;
};

struct Violations {
  int64_t messages = 0;     // receives completing before send start + min latency
  int64_t collectives = 0;  // collective exits before an entry they wait for
  int64_t worst = 0;        // ns, the largest of these gaps
  void Add(const Violations& o);
};

// What a window's matched messages and collectives require of its event
// times: each is a gate, whose dependents must end at least the minimal
// latency after the latest start of its sources. Built once per window and
// shared by CountViolations and Repair (which do not change it); Build
// reuses the memory of the window before.
class Constraints {
 public:
  struct Gates;

  Constraints();
  ~Constraints();
  void Build(const window::Window& window, const match::Matching& matching);
  const Gates& gates() const { return *gates_; }

 private:
  std::unique_ptr<Gates> gates_;
};

// Counts the violated constraints of a window at its events' current times.
Violations CountViolations(const window::Window& window, const Constraints& constraints, int64_t min_latency);

struct RankRepair {
  int64_t moved = 0;      // events whose times changed
  int64_t max_shift = 0;  // ns, largest change of an event time
};

struct RepairResult {
  std::vector<RankRepair> ranks;  // indexed by rank
  int64_t cycles_broken = 0;      // dependencies that could not be met (inconsistent trace)
};

// Moves event times (window->events) forward to satisfy every constraint.
// `shift` (by rank, grown as needed) is what earlier windows moved each rank
// by: it applies from the start of this window, and on return holds the
// shift at its end, so that intervals across windows keep their lengths.
RepairResult Repair(window::Window* window, const Constraints& constraints, const RepairOptions& options,
                    std::vector<int64_t>* shift);

}  // namespace rp::clock

#endif  // RP_LIB_CLOCK_REPAIR_H_
