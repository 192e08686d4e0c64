#include "lib/diagnose/distributed.h"

#include <string>

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

}  // namespace rp::diagnose
