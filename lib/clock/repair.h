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
#include <functional>
#include <utility>
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

// Counts the violated constraints of a window at its events' current times
// (of the dependents it holds: not of ghosts).
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

// Repair's steps, for a repair across the processes of a distributed
// analysis (lib/clock/distributed.h), where a window holds ghosts: other
// processes' events whose starts they send.

// A jump of the forward pass: the event at `position` in its rank's
// by_rank list ended `delta` later than its clock said.
struct Jump {
  size_t position;
  int64_t delta;
  int64_t at;  // the event's end before the jump
};

class ForwardPass {
 public:
  // Called with each event this process starts that is a gate's source.
  using Started = std::function<void(uint32_t event)>;
  ForwardPass(window::Window& w, const Constraints& constraints, int64_t min_latency, std::vector<int64_t>& shift);
  ~ForwardPass();
  // Starts every rank's first event.
  void Begin(const Started& started);
  // Finishes the events that can, and starts the next of their ranks.
  void Advance(const Started& started);
  // A ghost's start, from its holder.
  void StartGhost(uint32_t event, int64_t t0);
  bool done() const { return remaining_ == 0; }
  // When nothing can go on (a cycle): the earliest started event, by its
  // start and then its rank (rank -1: none), to be finished by Force.
  struct Blocked {
    int64_t t0 = INT64_MAX, rank = -1;
  };
  Blocked Earliest() const;
  void Force(size_t rank, const Started& started);
  const std::vector<std::vector<Jump>>& jumps() const { return jumps_; }

 private:
  int64_t NextEvent(size_t r) const;
  bool Ready(uint32_t e) const;
  void Offer(size_t r);
  void CompleteGate(int32_t first);
  void Feed(uint32_t e);
  void Start(size_t r);
  void Finish(size_t r);

  window::Window& w_;
  const Constraints::Gates& gates_;
  const int64_t min_latency_;
  const size_t ranks_;
  std::vector<int64_t>& shift_;
  std::vector<int64_t> value_;
  std::vector<int32_t> waiting_;
  std::vector<size_t> position_;
  std::vector<size_t> ready_ranks_;
  std::vector<bool> queued_;
  std::vector<int32_t> rank_of_;
  std::vector<int32_t> completed_gates_;
  std::vector<std::vector<Jump>> jumps_;
  size_t remaining_ = 0;  // events of this process's ranks not finished
  const Started* started_ = nullptr;
};

// The backward amortisation of the pass's jumps (options.amortize). Reads
// the dependents' ends, ghosts' included: set them first.
void Amortize(window::Window* window, const Constraints& constraints, const RepairOptions& options,
              const ForwardPass& pass);

// Every event's (t0, t1), by index.
std::vector<std::pair<int64_t, int64_t>> TimesOf(const window::Window& w);
// What moved since `before` (TimesOf), by rank; ghosts not counted.
std::vector<RankRepair> Moves(const window::Window& w, const std::vector<std::pair<int64_t, int64_t>>& before);

}  // namespace rp::clock

#endif  // RP_LIB_CLOCK_REPAIR_H_
