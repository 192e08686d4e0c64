// Matching a window across the processes of a distributed analysis
// (mpirun -np P rp-<stage>-mpi): each process reads some ranks' events
// (a distributed read, lib/dist/judge.h) and its messages and collectives
// have partners on other processes' ranks.
//
// Each process walks its ranks' events into operations as Match() does,
// then sends each other process what crosses to it: the sends to its
// ranks, the (resolved) receives from its ranks, and every call of a
// collective its ranks are members of, each with its events. Those events
// join the receiving process's window as ghosts (Event::ghost(): no line,
// no arrays), placed in the window's order — the whole stream's order,
// (phase, t0, rank, seq) — so that event indices compare as in the
// one-process window. Then pairing and grouping run on the window as
// Match() runs them: the matching lists every message and collective that
// has an event of this process, and the same pair of events for a message
// on both its processes. Unmatched operations are counted where the key's
// destination rank is read, incomplete and mismatched collectives where
// their lowest rank and their members are: summed over the processes, the
// counts are Match()'s on the whole window.
//
// What crosses, per window: a message between two processes' ranks
// travels both ways once (its send to the receiver's process, its receive
// to the sender's); a collective's calls go to every process holding a
// member (a world collective: every call to every process).
//
//   RP_ASSIGN_OR_RETURN(match::Owners owners, match::ShareOwners(comm, input.first_rank(), input.last_rank()));
//   match::Ghosts ghosts;
//   RP_ASSIGN_OR_RETURN(match::Matching m, match::MatchAcross(comm, owners, dict, &window, &ghosts));
#ifndef RP_LIB_MATCH_DISTRIBUTED_H_
#define RP_LIB_MATCH_DISTRIBUTED_H_

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/match/match.h"

namespace rp::match {

// Which process reads which ranks: contiguous groups, one per process
// (first > last: none).
struct Owners {
  std::vector<std::pair<int64_t, int64_t>> groups;
  int Of(int64_t rank) const;  // -1: no process
};
// Every process's group, from each process's own (InputSet::first_rank(), last_rank()).
Expected<Owners> ShareOwners(dist::Comm& comm, int64_t first, int64_t last);

// An event's place in the whole stream: (phase, t0, rank, seq); phase -1
// when absent (trace::Reader::OrderKey, with seq for a rank's own order).
struct EventOrder {
  int64_t phase, t0, rank, seq;
  static EventOrder Of(const window::Event& e);
  auto operator<=>(const EventOrder&) const = default;
};

// The ghosts of a window after MatchAcross.
struct Ghosts {
  struct RankSeq {
    int64_t rank, seq;
    bool operator==(const RankSeq&) const = default;
  };
  struct Hash {
    size_t operator()(const RankSeq& k) const {
      return static_cast<size_t>(static_cast<uint64_t>(k.rank) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(k.seq));
    }
  };
  // Each ghost's event index.
  std::unordered_map<RankSeq, uint32_t, Hash> index;
  // Each of this process's events (by index) the processes it was sent
  // to, ascending; empty for most.
  std::vector<std::vector<int>> holders;
  uint32_t Find(int64_t rank, int64_t seq) const {
    auto it = index.find({rank, seq});
    return it == index.end() ? UINT32_MAX : it->second;
  }
};

// Each value another process sent for a ghost, as (rank, seq, value...)
// entries in `in` (by process): take(ghost event, &unpacker) reads its
// value. `what` names the values in errors ("path", "times").
template <typename Take>
Status ForEachGhostValue(const std::vector<std::string>& in, const Ghosts& ghosts, const char* what, Take take) {
  for (size_t p = 0; p < in.size(); ++p) {
    dist::Unpacker from(in[p]);
    while (!from.done()) {
      const int64_t rank = from.Get<int64_t>(), seq = from.Get<int64_t>();
      const uint32_t e = ghosts.Find(rank, seq);
      if (from.bad() || e == UINT32_MAX) {
        return InputError("process " + std::to_string(p) + " sent the " + what + " of rank " + std::to_string(rank) +
                          " seq " + std::to_string(seq) + ", which is no ghost here");
      }
      take(e, &from);
      if (from.bad()) return InputError("process " + std::to_string(p) + " sent damaged " + what);
    }
  }
  return OkStatus();
}

// This process's event of `rank` with `seq` (kNoEvent if it holds none):
// how a process finds the event another names.
uint32_t LocalEvent(const window::Window& w, int64_t rank, int64_t seq);

// Matches `*window` (this process's ranks' records) with the other
// processes', adding the partners' events as ghosts. Every process calls
// it for every window, in the same turn. A seq repeated on a rank is an
// error (events are named by rank and seq across processes).
// `bytes_sent`, if given, grows by what this process sent.
Expected<Matching> MatchAcross(dist::Comm& comm, const Owners& owners, const window::Dictionary& dict,
                               window::Window* window, Ghosts* ghosts, int64_t* bytes_sent = nullptr);

// The first few examples of unmatched operations over a run whose windows
// several processes matched in parts: kept with their window and their
// place in it, so that merged they come in the order one process's
// matching meets them (window by window, in key order).
class ExampleList {
 public:
  explicit ExampleList(size_t most) : most_(most) {}
  void Add(int64_t window, const Matching& m);
  // Another process's list into this one (Pack, then AddPacked).
  void Pack(dist::Packer* out) const;
  Status AddPacked(dist::Unpacker* in);
  // The first `most` texts.
  std::vector<std::string> Texts() const;

 private:
  struct Entry {
    int64_t window;
    std::array<int64_t, 5> order;
    std::string text;
  };
  size_t most_;
  std::vector<Entry> entries_;  // this process's first, then what others sent
};

}  // namespace rp::match

#endif  // RP_LIB_MATCH_DISTRIBUTED_H_
