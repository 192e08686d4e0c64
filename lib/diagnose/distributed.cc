#include "lib/diagnose/distributed.h"

#include "lib/repr/distributed.h"

#include <algorithm>
#include <map>
#include <set>
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

void PutVector(const std::vector<int64_t>& v, dist::Packer* out) {
  out->Put<uint64_t>(v.size());
  for (int64_t x : v) out->Put(x);
}
void AddVector(dist::Unpacker* in, std::vector<int64_t>* into) {
  const uint64_t n = in->Get<uint64_t>();
  if (in->bad() || n > (uint64_t{1} << 24)) {
    in->Get<int64_t>();  // an impossible count: the unpacker ends as damaged
    return;
  }
  if (into->size() < n) into->resize(n);
  for (uint64_t i = 0; i < n; ++i) (*into)[i] += in->Get<int64_t>();
}
// A wait key field by field: its struct has padding.
void PutKey(const WaitKey& k, dist::Packer* out) {
  out->Put<uint8_t>(static_cast<uint8_t>(k.pattern));
  out->Put(k.site);
  out->Put(k.fn);
}
WaitKey GetKey(dist::Unpacker* in) {
  WaitKey k;
  k.pattern = static_cast<Pattern>(in->Get<uint8_t>());
  k.site = in->Get<int32_t>();
  k.fn = in->Get<int32_t>();
  return k;
}
void PutCost(const DelayCost& c, dist::Packer* out) {
  out->Put<uint64_t>(c.functions.size());
  for (const auto& [function, ns] : c.functions) {
    out->Put(function);
    out->Put(ns);
  }
  out->Put(c.propagated);
}
DelayCost GetCost(dist::Unpacker* in) {
  DelayCost c;
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    const int32_t function = in->Get<int32_t>();
    c.functions.emplace_back(function, in->Get<int64_t>());
  }
  c.propagated = in->Get<int64_t>();
  return c;
}

}  // namespace

void PackFigures(const PhaseFigures& f, dist::Packer* out) {
  for (int64_t v : {int64_t{f.phase}, f.cluster, f.t0, f.t1, f.ideal, f.first_window, int64_t{f.balance_measured}}) {
    out->Put(v);
  }
  uint64_t present = 0;
  for (const RankFigures& r : f.ranks) present += r.present;
  out->Put<uint64_t>(f.ranks.size());
  out->Put(present);
  for (size_t rank = 0; rank < f.ranks.size(); ++rank) {
    const RankFigures& r = f.ranks[rank];
    if (!r.present) continue;
    out->Put<uint64_t>(rank);
    for (int64_t v : {r.compute, r.mpi, r.wait, r.closing_wait, int64_t{r.closed}, int64_t{r.closing_site},
                      int64_t{r.closing_fn}, int64_t{r.last_site}}) {
      out->Put(v);
    }
    out->Put<uint64_t>(r.sites.size());
    for (int32_t site : r.sites) out->Put(site);
    out->Put<uint8_t>(r.held.has_value());
    if (r.held) {
      PutKey(r.held->key, out);
      out->Put(r.held->delayer);
      out->Put(r.held->wait);
      PutCost(r.held->cost, out);
    }
  }
  for (const auto* table : {&f.functions, &f.posix_io}) {
    out->Put<uint64_t>(table->size());
    for (const auto& [function, ns] : *table) {
      out->Put(function);
      PutVector(ns, out);
    }
  }
  out->Put<uint64_t>(f.waits.size());
  for (const auto& [key, sum] : f.waits) {
    PutKey(key, out);
    for (int64_t v : {sum.ns, sum.count, sum.propagated}) out->Put(v);
    PutVector(sum.waiting, out);
    PutVector(sum.delaying, out);
    out->Put<uint64_t>(sum.causes.size());
    for (const auto& [function, ns] : sum.causes) {
      out->Put(function);
      out->Put(ns);
    }
  }
  out->Put<uint64_t>(f.sites.size());
  for (const auto& [site, s] : f.sites) {
    out->Put(site);
    for (int64_t v : {int64_t{s.fn}, s.calls, s.time, s.work, s.bytes, s.hits}) out->Put(v);
    PutVector(s.ranks, out);
  }
  out->Put<uint64_t>(f.what_if.size());
  for (const auto& [function, ns] : f.what_if) {
    out->Put(function);
    out->Put(ns);
  }
}

int32_t PackedPhase(dist::Unpacker in) { return static_cast<int32_t>(in.Get<int64_t>()); }  // PackFigures' first

Status MergePacked(dist::Unpacker* in, PhaseFigures* into) {
  PhaseFigures& f = *into;
  const bool first = f.ranks.empty() && f.t0 == INT64_MAX;
  int64_t v[7];
  for (int64_t& x : v) x = in->Get<int64_t>();
  f.phase = static_cast<int32_t>(v[0]);
  f.cluster = v[1];
  f.t0 = std::min(f.t0, v[2]);
  f.t1 = std::max(f.t1, v[3]);
  f.ideal = std::max(f.ideal, v[4]);
  f.first_window = f.first_window < 0 ? v[5] : std::min(f.first_window, v[5]);
  // Measured where every process measured it: one whose ranks ran on into
  // a later window gave it up.
  f.balance_measured = (first || f.balance_measured) && v[6] != 0;
  const uint64_t size = in->Get<uint64_t>(), present = in->Get<uint64_t>();
  if (in->bad() || size > (uint64_t{1} << 24) || present > size) return InputError("damaged phase figures");
  if (f.ranks.size() < size) f.ranks.resize(size);
  for (uint64_t k = 0; k < present && !in->bad(); ++k) {
    const uint64_t rank = in->Get<uint64_t>();
    if (rank >= size) return InputError("damaged phase figures");
    RankFigures& r = f.ranks[rank];
    r.present = true;
    r.compute = in->Get<int64_t>();
    r.mpi = in->Get<int64_t>();
    r.wait = in->Get<int64_t>();
    r.closing_wait = in->Get<int64_t>();
    r.closed = in->Get<int64_t>() != 0;
    r.closing_site = static_cast<int32_t>(in->Get<int64_t>());
    r.closing_fn = static_cast<int32_t>(in->Get<int64_t>());
    r.last_site = static_cast<int32_t>(in->Get<int64_t>());
    r.sites.clear();
    for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) r.sites.push_back(in->Get<int32_t>());
    r.held.reset();
    if (in->Get<uint8_t>() != 0) {
      RankFigures::Held held;
      held.key = GetKey(in);
      held.delayer = in->Get<int32_t>();
      held.wait = in->Get<int64_t>();
      held.cost = GetCost(in);
      r.held = std::move(held);
    }
  }
  for (auto* table : {&f.functions, &f.posix_io}) {
    for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
      const int32_t function = in->Get<int32_t>();
      AddVector(in, &(*table)[function]);
    }
  }
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    const WaitKey key = GetKey(in);
    WaitSum sum;
    sum.ns = in->Get<int64_t>();
    sum.count = in->Get<int64_t>();
    sum.propagated = in->Get<int64_t>();
    AddVector(in, &sum.waiting);
    AddVector(in, &sum.delaying);
    for (uint64_t c = in->Get<uint64_t>(); c > 0 && !in->bad(); --c) {
      const int32_t function = in->Get<int32_t>();
      sum.causes[function] += in->Get<int64_t>();
    }
    f.waits[key].Add(sum);
  }
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    const int32_t site = in->Get<int32_t>();
    SiteFigures s;
    s.fn = static_cast<int32_t>(in->Get<int64_t>());
    s.calls = in->Get<int64_t>();
    s.time = in->Get<int64_t>();
    s.work = in->Get<int64_t>();
    s.bytes = in->Get<int64_t>();
    s.hits = in->Get<int64_t>();
    AddVector(in, &s.ranks);
    f.sites[site].Add(s);
  }
  std::map<int32_t, int64_t> what_if;
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    const int32_t function = in->Get<int32_t>();
    what_if[function] = in->Get<int64_t>();
  }
  if (first) f.what_if = std::move(what_if);
  if (!f.balance_measured) f.what_if.clear();
  // Every function's time by rank covers every rank (as Figures ends a
  // phase): a process sized them to the ranks it saw.
  for (auto& [function, ns] : f.functions) {
    if (ns.size() < f.ranks.size()) ns.resize(f.ranks.size());
  }
  return in->bad() ? InputError("damaged phase figures") : OkStatus();
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

Status FiguresAcrossProcesses::Union(std::vector<int32_t>* phases) {
  dist::Packer mine;
  for (int32_t phase : *phases) mine.Put(phase);
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm_.Allgather(mine.bytes()));
  std::set<int32_t> any;
  for (const std::string& bytes : all) {
    dist::Unpacker in(bytes);
    while (!in.done() && !in.bad()) any.insert(in.Get<int32_t>());
  }
  phases->assign(any.begin(), any.end());
  return OkStatus();
}

Status FiguresAcrossProcesses::Sets(graph::Graph& g, repr::PathSets* sets, const std::vector<repr::RankSet>& carried,
                                    int64_t run_start) {
  if (ghosts_ == nullptr) return InputError("FiguresAcrossProcesses: SetWindow was not called for this window");
  repr::SetsPass pass(g, sets, carried, run_start);
  return graph::Replay(comm_, g, *ghosts_, pass, &sets_stats_);
}

Status FiguresAcrossProcesses::Choices(std::vector<BalanceChoice>* choices) {
  dist::Packer mine;
  for (const BalanceChoice& c : *choices) {
    mine.Put(c.phase);
    for (int64_t v : {c.first_window, int64_t{c.closed}, c.members, c.wait_sum, c.wait_least}) mine.Put(v);
    mine.Put<uint64_t>(c.functions.size());
    for (const auto& [function, spread] : c.functions) {
      mine.Put(function);
      mine.Put(spread.first);
      mine.Put(spread.second);
    }
  }
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm_.Allgather(mine.bytes()));
  std::map<int32_t, BalanceChoice> merged;
  for (size_t p = 0; p < all.size(); ++p) {
    dist::Unpacker in(all[p]);
    while (!in.done() && !in.bad()) {
      BalanceChoice c;
      c.phase = in.Get<int32_t>();
      c.first_window = in.Get<int64_t>();
      c.closed = in.Get<int64_t>() != 0;
      c.members = in.Get<int64_t>();
      c.wait_sum = in.Get<int64_t>();
      c.wait_least = in.Get<int64_t>();
      for (uint64_t n = in.Get<uint64_t>(); n > 0 && !in.bad(); --n) {
        const int32_t function = in.Get<int32_t>();
        const int64_t sum = in.Get<int64_t>();
        c.functions[function] = {sum, in.Get<int64_t>()};
      }
      auto [it, fresh] = merged.try_emplace(c.phase, c);
      if (!fresh) it->second.Add(c);
    }
    if (in.bad()) return InputError("process " + std::to_string(p) + " sent damaged balancing choices");
  }
  choices->clear();
  for (auto& [phase, c] : merged) choices->push_back(std::move(c));
  return OkStatus();
}

}  // namespace rp::diagnose
