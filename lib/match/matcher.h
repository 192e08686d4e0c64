// The matcher behind Match(), and behind a distributed analysis's match
// (distributed.h): it walks each rank's events into the sends and
// receives they make and the collective calls they join, then pairs sends
// with receives by key and groups calls into instances. Internal to
// lib/match.
#ifndef RP_LIB_MATCH_MATCHER_H_
#define RP_LIB_MATCH_MATCHER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/base/id_table.h"
#include "lib/match/match.h"

namespace rp::match::internal {

using window::Event;
using window::kNone;
using window::kNoId;

// (communicator, source, destination, tag)
using Key = std::tuple<int64_t, int64_t, int64_t, int64_t>;

struct Operation {
  uint32_t start = kNoEvent;
  uint32_t done = kNoEvent;
  int64_t bytes = 0;
  Key key;
  bool resolved = true;  // the key is known (not a wildcard awaiting its status)
};

// A rank's requests while walking its events: what completing each means.
struct Request {
  bool persistent = false;
  bool is_send = false, is_recv = false, is_coll = false;
  int64_t comm = kNone, peer = kNone, tag = kNone, bytes = 0;
  int64_t op = -1;    // index of the active operation (sends_/receives_) or collective slot
};

class Matcher {
 public:
  Matcher(const window::Window& w, const window::Dictionary& dict) : w_(w), dict_(dict) {}
  Matching Run();

  // The steps of Run(), for a distributed match: walk the ranks that
  // have events, then (once operations of other processes' ranks are
  // added) pair and group.
  void Walk();
  Matching Finish();
  // Which ranks' imbalances this matcher counts (a key's unmatched
  // sends and receives where its destination is; a collective's
  // incomplete and mismatched members where they are): all by default,
  // a distributed match's own ranks.
  void CountOnly(std::function<bool(int64_t rank)> local) { counts_rank_ = std::move(local); }
  // After the window's events were reordered (ghosts put among them):
  // every operation's and call's event index i becomes index[i].
  void Remap(const std::vector<uint32_t>& index);
  // Operations and calls of other processes' ranks, their events in the window.
  void AddRemoteSend(const Operation& op) { sends_.push_back(op); }
  void AddRemoteReceive(const Operation& op) { receives_.push_back(op); }
  void AddRemoteCall(int64_t comm, int64_t k, uint32_t entry, uint32_t exit);
  const std::vector<Operation>& sends() const { return sends_; }
  const std::vector<Operation>& receives() const { return receives_; }
  // A collective call: its instance (comm, k-th call of its rank on comm), entry and exit events.
  struct Call {
    int64_t comm, k;
    uint32_t entry, exit;
  };
  std::vector<Call> Calls() const;

 private:
  void Example(const std::string& text, const std::array<int64_t, 5>& order);
  int64_t AddSend(uint32_t e, int64_t comm, int64_t src, int64_t dst, int64_t tag, int64_t bytes, bool blocking);
  int64_t AddReceive(uint32_t e, int64_t comm, int64_t src, int64_t dst, int64_t tag, bool blocking);
  bool Counts(int64_t rank) const { return !counts_rank_ || counts_rank_(rank); }
  void Complete(const Event& e, uint32_t index, int64_t id);
  void Start(uint32_t index, int64_t rank, Request& r);
  void WalkRank(int64_t rank);
  void PairMessages();
  void SortBySend(std::vector<Message>* messages);
  void GroupCollectives();
  const std::vector<int32_t>* Positions(int64_t comm);

  const window::Window& w_;
  const window::Dictionary& dict_;
  std::unordered_map<int64_t, std::vector<int32_t>> positions_;
  Matching out_;
  std::vector<Operation> sends_, receives_;
  IdTable<Request> requests_;   // the walked rank's requests, by id
  IdTable<int64_t> messages_;   // its matched-probe message ids -> receive op
  std::map<std::pair<int64_t, int64_t>, int64_t> coll_count_;             // (rank, comm) -> calls
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> coll_calls_;  // (comm, k) -> slots
  std::vector<uint32_t> coll_entry_, coll_exit_;
  std::function<bool(int64_t)> counts_rank_;
};

}  // namespace rp::match::internal

#endif  // RP_LIB_MATCH_MATCHER_H_
