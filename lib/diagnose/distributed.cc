#include "lib/diagnose/distributed.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

namespace rp::diagnose {

Status RemoteSides(dist::Comm& comm, const match::Owners& owners, const graph::Graph& g,
                   const profile::Attribution& attribution, const std::vector<uint32_t>& delayers,
                   std::vector<Side>* sides) {
  const window::Window& w = g.window();
  sides->assign(delayers.size(), {});
  std::vector<dist::Packer> ask(comm.size());
  for (size_t i = 0; i < delayers.size(); ++i) {
    const window::Event& e = w.events[delayers[i]];
    const int p = owners.Of(e.rank);
    if (p < 0) return InputError("a delayer of rank " + std::to_string(e.rank) + ", which no process reads");
    ask[p].Put<int64_t>(static_cast<int64_t>(i));
    ask[p].Put<int64_t>(e.rank);
    ask[p].Put<int64_t>(e.seq);
  }
  std::vector<std::string> bytes(comm.size());
  for (int p = 0; p < comm.size(); ++p) bytes[p] = std::move(ask[p].bytes());
  RP_ASSIGN_OR_RETURN(std::vector<std::string> asked, comm.Alltoallv(bytes));
  // Each question answered with the side: (index, count, (function, ns)...).
  for (int p = 0; p < comm.size(); ++p) {
    dist::Unpacker in(asked[p]);
    dist::Packer answer;
    while (!in.done()) {
      const int64_t i = in.Get<int64_t>(), rank = in.Get<int64_t>(), seq = in.Get<int64_t>();
      const uint32_t e = match::LocalEvent(w, rank, seq);
      if (in.bad() || e == match::kNoEvent) {
        return InputError("process " + std::to_string(p) + " asked for the computation before rank " +
                          std::to_string(rank) + " seq " + std::to_string(seq) + ", which this process does not hold");
      }
      const Side side = SideComputation(g, attribution, e);
      answer.Put(i);
      answer.Put<uint64_t>(side.size());
      for (const auto& [function, ns] : side) {
        answer.Put(function);
        answer.Put(ns);
      }
    }
    bytes[p] = std::move(answer.bytes());
  }
  RP_ASSIGN_OR_RETURN(std::vector<std::string> answers, comm.Alltoallv(bytes));
  for (int p = 0; p < comm.size(); ++p) {
    dist::Unpacker in(answers[p]);
    while (!in.done()) {
      const int64_t i = in.Get<int64_t>();
      const uint64_t n = in.Get<uint64_t>();
      if (in.bad() || i < 0 || static_cast<size_t>(i) >= sides->size()) {
        return InputError("process " + std::to_string(p) + " sent a damaged answer");
      }
      Side& side = (*sides)[i];
      for (uint64_t k = 0; k < n && !in.bad(); ++k) {
        const int32_t function = in.Get<int32_t>();
        side.emplace_back(function, in.Get<int64_t>());
      }
      if (in.bad()) return InputError("process " + std::to_string(p) + " sent a damaged answer");
    }
  }
  return OkStatus();
}

namespace {

struct Wide {
  __int128 value;
  void Add(const Wide& o) { value += o.value; }
};
struct Most {
  int64_t value;
  void Add(const Most& o) { value = std::max(value, o.value); }
};
static_assert(std::is_trivially_copyable_v<Wide> && std::is_trivially_copyable_v<Most>);

template <typename Slot, typename T>
Status Reduce(dist::Comm& comm, std::vector<T>* values) {
  std::string slots(values->size() * sizeof(Slot), '\0');
  for (size_t i = 0; i < values->size(); ++i) {
    const Slot s{(*values)[i]};
    std::memcpy(slots.data() + i * sizeof s, &s, sizeof s);
  }
  RP_RETURN_IF_ERROR(comm.Allreduce(&slots, sizeof(Slot), &dist::FoldSlots<Slot>));
  for (size_t i = 0; i < values->size(); ++i) {
    Slot s;
    std::memcpy(&s, slots.data() + i * sizeof s, sizeof s);
    (*values)[i] = s.value;
  }
  return OkStatus();
}

}  // namespace

Status BalanceAcross::Longest(const graph::Graph& g, const std::vector<graph::RankEnd>& ends, int64_t run_start,
                              graph::LongestPath* lp, const graph::Zeroing* zero) {
  if (g_ != &g || ghosts_ == nullptr) return InputError("BalanceAcross: SetWindow was not called for this graph");
  graph::LengthPass pass(*g_, ends, run_start, lp, zero);
  return graph::Replay(comm_, *g_, *ghosts_, pass, &stats_);
}

Status BalanceAcross::Sum(std::vector<__int128>* slots) { return Reduce<Wide>(comm_, slots); }

Status BalanceAcross::Max(std::vector<int64_t>* slots) { return Reduce<Most>(comm_, slots); }

}  // namespace rp::diagnose
