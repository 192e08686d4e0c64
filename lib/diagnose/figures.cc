#include "lib/diagnose/figures.h"

#include <algorithm>
#include <cmath>

namespace rp::diagnose {

using window::kNone;

Figures::Figures(const window::Dictionary& dict, double cause_share, FiguresAcross* across)
    : across_(across),
      attribution_(dict),
      sets_(repr::Config{.k = 2, .select = repr::Select::kRepr, .cost = repr::Cost::kCompute, .reset_at_phase = true}),
      timeline_(std::max({dict.ranks, dict.CommSize(0), static_cast<int64_t>(dict.rank_records.size())})),
      balance_(across ? across->balance() : nullptr) {
  cause_share_ = cause_share;
}

PhaseFigures& Figures::At(int32_t phase, size_t ranks) {
  PhaseFigures& f = open_[phase];
  f.phase = phase;
  if (f.first_window < 0) f.first_window = window_index_;
  if (f.first_window != window_index_ && f.balance_measured) {  // it runs on: measured in part only
    f.balance_measured = false;
    f.what_if.clear();
  }
  if (f.ranks.size() < ranks) f.ranks.resize(ranks);
  return f;
}

void Figures::End(int32_t phase, std::vector<PhaseFigures>* ended) {
  ended_order_.push_back(phase);
  auto it = open_.find(phase);
  if (it == open_.end()) return;  // no calls but MPI_Init's: nothing measured
  it->second.cluster = ends_.cluster(phase);
  for (auto& [fn, ns] : it->second.functions) ns.resize(it->second.ranks.size());
  ended->push_back(std::move(it->second));
  open_.erase(it);
}

Status Figures::AddWindow(graph::WindowGraph& wg, std::vector<PhaseFigures>* ended) {
  const window::Window& w = wg.window;
  graph::Graph& g = wg.graph;
  RP_RETURN_IF_ERROR(across_ ? across_->ShareEnds(w, &ends_) : ends_.Note(w));
  attribution_.ForgetBefore(INT64_MAX);  // each window's computations are asked for once
  ended_order_.clear();
  // The window over every process: the run's start, and its ranks (a
  // process's window holds its own ranks only), which size the figures by
  // rank as one process sizes them.
  graph::WindowExtent extent = graph::WindowExtent::Of(g);
  if (across_) {
    RP_ASSIGN_OR_RETURN(extent, across_->Extent(g));
    attribution_.SeeRanks(extent.ranks);
  }
  if (!started_ && extent.events > 0) {
    started_ = true;
    run_start_ = extent.start();
    phased_ = ends_.Phased();
  }
  // Samples after the last call; processes go on together (their passes
  // are collective) while any has calls.
  if (!started_ || (across_ == nullptr && w.events.empty())) return attribution_.AddWindow(w, run_start_);
  RP_RETURN_IF_ERROR(attribution_.AddWindow(w, run_start_));
  if (phased_) {
    for (int32_t phase : ends_.EndedBefore()) End(phase, ended);
  }
  if (across_) {
    RP_RETURN_IF_ERROR(across_->Sets(g, &sets_, carried_, run_start_));
  } else {
    sets_.Run(g, carried_, run_start_);
  }
  states_.Find(wg);
  // The bytes each call moved: a message's, at the calls that start and
  // complete it (a Wait completing a receive moves what it received).
  moved_.assign(w.events.size(), 0);
  for (const match::Message& m : wg.matching.messages) {
    if (m.send_done != match::kNoEvent) moved_[m.send_done] += m.bytes;
    if (m.recv_done != match::kNoEvent) moved_[m.recv_done] += m.bytes;
  }
  // The delayers other processes hold: their side of the delay costs.
  std::unordered_map<uint32_t, Side> remote;
  if (across_) {
    std::vector<uint32_t> delayers;
    for (uint32_t e = 0; e < w.events.size(); ++e) {
      if (states_.pattern[e] == Pattern::kNone || !Held(w.events[e].rank)) continue;
      const uint32_t d = states_.delayer[e];
      if (!Held(w.events[d].rank) && remote.emplace(d, Side{}).second) delayers.push_back(d);
    }
    std::vector<Side> sides;
    RP_RETURN_IF_ERROR(across_->Sides(g, attribution_, delayers, &sides));
    for (size_t i = 0; i < delayers.size(); ++i) remote[delayers[i]] = std::move(sides[i]);
  }
  ++window_index_;
  RP_RETURN_IF_ERROR(balance_.Window(g, run_start_));
  const size_t ranks = static_cast<size_t>(extent.ranks);
  // The phases the timeline may draw (calls but MPI_Init's and the ends of
  // the application), over every rank, before any rank's calls.
  std::vector<int32_t> drawable;
  for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
    if (!Held(static_cast<int32_t>(rank))) continue;
    for (uint32_t e : w.by_rank[rank]) {
      const window::Event& ev = w.events[e];
      if (ev.category() != mpi::Category::kInit && !ev.bounds_application()) {
        drawable.push_back(phased_ ? ev.phase : kNone);
      }
    }
  }
  std::sort(drawable.begin(), drawable.end());
  drawable.erase(std::unique(drawable.begin(), drawable.end()), drawable.end());
  if (across_) RP_RETURN_IF_ERROR(across_->Union(&drawable));
  for (int32_t phase : drawable) timeline_.See(phase, phased_ ? ends_.cluster(phase) : -1);
  for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
    if (!Held(static_cast<int32_t>(rank))) continue;  // a ghost's: its holder measures it
    // The previous call's exit, where the computation before a call starts.
    int64_t before = rank < carried_.size() && carried_[rank].started ? carried_[rank].time : run_start_;
    // The phase of the rank's last call, its figures and cluster: a rank's
    // calls run phase after phase.
    PhaseFigures* at = nullptr;
    int64_t at_cluster = -1;
    for (uint32_t e : w.by_rank[rank]) {
      const window::Event& ev = w.events[e];
      const int64_t start = std::max(before, run_start_);
      before = ev.t1;
      const int64_t end = ev.bounds_application() ? ev.t0 : ev.t1;
      run_end_ = std::max(run_end_, end);
      if (ev.category() == mpi::Category::kInit) continue;  // before it is not the application's
      if (ev.site != kNone) {
        std::vector<bool>& callers = callers_[ev.site];
        if (callers.size() <= rank) callers.resize(ranks);
        callers[rank] = true;
      }
      const int32_t phase = phased_ ? ev.phase : kNone;
      if (at == nullptr || at->phase != phase) {
        at = &At(phase, ranks);
        at_cluster = phased_ ? ends_.cluster(phase) : -1;
      }
      PhaseFigures& f = *at;
      RankFigures& r = f.ranks[rank];
      const profile::Attribution::Computation c = attribution_.Before(e);
      if (r.held && !ev.bounds_application()) {  // not the closing call after all
        f.waits[r.held->key].Add(static_cast<int32_t>(rank), r.held->delayer, r.held->wait, r.held->cost);
        r.held.reset();
      }
      if (!r.present) f.t0 = std::min(f.t0, start);
      f.t1 = std::max(f.t1, end);
      r.present = true;
      r.compute += c.t1 - c.t0;
      Mix& mix = mix_[MixKey(static_cast<int32_t>(rank), ev.site)];
      mix.ns += c.t1 - c.t0;
      for (const profile::Share* s = c.begin; s != c.end; ++s) {
        const int32_t function = attribution_.tree().node(attribution_.tree().node(s->node).owner).function;
        std::vector<int64_t>& ns = f.functions[function];
        if (ns.size() < ranks) ns.resize(ranks);
        ns[rank] += s->ns;
        if (PosixIo(attribution_.tree().node(s->node).function)) {
          std::vector<int64_t>& io = f.posix_io[function];
          if (io.size() < ranks) io.resize(ranks);
          io[rank] += s->ns;
        }
        auto m = std::find_if(mix.functions.begin(), mix.functions.end(),
                              [&](const auto& x) { return x.first == function; });
        if (m == mix.functions.end()) mix.functions.emplace_back(function, s->ns);
        else m->second += s->ns;
      }
      f.ideal = std::max(f.ideal, sets_.begin(graph::Exit(e))->cost);
      if (ev.bounds_application()) continue;
      if (ev.site != r.last_site) {
        r.last_site = ev.site;
        if (std::find(r.sites.begin(), r.sites.end(), ev.site) == r.sites.end()) r.sites.push_back(ev.site);
      }
      r.mpi += ev.t1 - ev.t0;
      const graph::CallTimes& t = wg.times[e];
      r.wait += t.wait_before + t.wait_after;
      if (ev.site != kNone) {
        SiteFigures& site = f.sites[ev.site];
        site.fn = ev.fn;
        ++site.calls;
        site.time += ev.t1 - ev.t0;
        site.work += t.execution;
        site.bytes += std::max({ev.bytes, ev.rbytes, moved_[e]});
        const std::string_view name = ev.fn >= 0 ? mpi::kFunctions[ev.fn].name : "";
        // A probe found a message when its record says how many bytes.
        const bool found = ((w.lines[ev.line].present >> trace::MpiRecord::k_bytes) & 1) != 0;
        if (name.starts_with("MPI_Test") ? ev.completed_count > 0 : name.ends_with("probe") && found) {
          ++site.hits;
        }
        if (site.ranks.size() < ranks) site.ranks.resize(ranks);
        site.ranks[rank] += ev.t1 - ev.t0;
      }
      timeline_.Call(f.phase, at_cluster, static_cast<int32_t>(rank), start, ev.t0,
                     t.wait_before, ev.t1);
      // The last call so far: the closing one if the phase ends here.
      const bool sync = w.lines[ev.line].global_sync;
      r.closed = sync;
      r.closing_wait = sync ? t.wait_before : 0;
      r.closing_site = sync ? ev.site : kNone;
      r.closing_fn = sync ? ev.fn : -1;
      if (const Pattern p = states_.pattern[e]; p != Pattern::kNone) {
        const uint32_t delayer = states_.delayer[e];
        auto far = remote.find(delayer);
        RankFigures::Held s{WaitKey{p, ev.site, ev.fn}, w.events[delayer].rank, t.wait_before,
                            far == remote.end()
                                ? Delay(g, attribution_, e, delayer, t.wait_before)
                                : DelayFrom(far->second, SideComputation(g, attribution_, e), t.wait_before)};
        if (sync && (p == Pattern::kWaitNxN || p == Pattern::kWaitBarrier)) {
          r.held = std::move(s);
        } else {
          f.waits[s.key].Add(static_cast<int32_t>(rank), s.delayer, s.wait, s.cost);
        }
      }
    }
  }
  sets_.Carry(g, &carried_);
  RP_RETURN_IF_ERROR(MeasureBalance(g));
  balance_.Advance(g);
  if (phased_) {
    for (int32_t phase : ends_.EndedIn()) End(phase, ended);
  }
  return OkStatus();
}

bool Figures::Held(int32_t rank) const { return across_ == nullptr || across_->Holds(rank); }

double PhaseFigures::Symptom(const std::vector<size_t>& members) const {
  double sum = 0, least = INFINITY;
  for (size_t r : members) {
    sum += static_cast<double>(ranks[r].closing_wait);
    least = std::min(least, static_cast<double>(ranks[r].closing_wait));
  }
  return members.empty() ? 0 : sum / static_cast<double>(members.size()) - least;
}

void SiteFigures::Add(const SiteFigures& o) {
  fn = o.fn;
  calls += o.calls;
  time += o.time;
  work += o.work;
  bytes += o.bytes;
  hits += o.hits;
  if (ranks.size() < o.ranks.size()) ranks.resize(o.ranks.size());
  for (size_t r = 0; r < o.ranks.size(); ++r) ranks[r] += o.ranks[r];
}

bool Figures::PosixIo(int32_t function) {
  if (function < 0) return false;
  if (static_cast<size_t>(function) >= posix_io_.size()) posix_io_.resize(function + 1, -1);
  if (posix_io_[function] < 0) {
    // libc's names for the calls: write, __write, __libc_write,
    // __GI___libc_write, __write_nocancel, ...
    std::string_view name = attribution_.tree().functions()[function];
    auto strip = [&](std::string_view prefix) {
      while (name.starts_with("_")) name.remove_prefix(1);
      if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
      while (name.starts_with("_")) name.remove_prefix(1);
    };
    strip("GI_");
    strip("libc_");
    if (name.ends_with("_nocancel")) name.remove_suffix(9);
    static constexpr std::string_view kIo[] = {
        "read",   "write",  "pread",  "pwrite", "pread64", "pwrite64", "readv",     "writev",          "preadv",
        "pwritev", "fsync", "fdatasync", "sync_file_range", "msync", "fread", "fwrite", "fflush", "open", "open64",
        "openat", "close"};
    posix_io_[function] = std::find(std::begin(kIo), std::end(kIo), name) != std::end(kIo);
  }
  return posix_io_[function] == 1;
}

int32_t Figures::DominantFunction(int32_t site) const {
  std::map<int32_t, int64_t> by_function;
  for (const auto& [key, mix] : mix_) {
    if (static_cast<int32_t>(static_cast<uint32_t>(key)) != site) continue;
    for (const auto& [function, ns] : mix.functions) by_function[function] += ns;
  }
  int32_t best = -1;
  int64_t most = 0;
  for (const auto& [function, ns] : by_function) {
    if (ns > most) most = ns, best = function;
  }
  return best;
}

double Figures::Share(int32_t rank, int32_t site, int32_t function) const {
  auto it = mix_.find(MixKey(rank, site));
  if (it == mix_.end() || it->second.ns <= 0) return 0;
  for (const auto& [f, ns] : it->second.functions) {
    if (f == function) return static_cast<double>(ns) / static_cast<double>(it->second.ns);
  }
  return 0;
}

void BalanceChoice::Add(const BalanceChoice& o) {
  phase = o.phase;
  first_window = std::min(first_window, o.first_window);
  closed &= o.closed;
  members += o.members;
  wait_sum += o.wait_sum;
  wait_least = std::min(wait_least, o.wait_least);
  for (const auto& [function, spread] : o.functions) {
    auto& [sum, most] = functions[function];
    sum += spread.first;
    most = std::max(most, spread.second);
  }
}

Status Figures::MeasureBalance(graph::Graph& g) {
  // The phases whose calls all lie in this window, each rank's last a
  // global synchronization; and the functions worth a what-if in each:
  // decided on every rank's figures, so every process measures the same.
  std::vector<BalanceChoice> choices;
  for (const auto& [phase, f] : open_) {
    if (phase == kNone) continue;
    BalanceChoice c;
    c.phase = phase;
    c.first_window = f.first_window;
    for (size_t r = 0; r < f.ranks.size(); ++r) {
      const RankFigures& rf = f.ranks[r];
      if (!rf.present) continue;
      ++c.members;
      c.closed &= rf.closed;
      c.wait_sum += rf.closing_wait;
      c.wait_least = std::min(c.wait_least, rf.closing_wait);
    }
    for (const auto& [function, ns] : f.functions) {
      auto& [sum, most] = c.functions[function];
      for (size_t r = 0; r < f.ranks.size(); ++r) {
        if (!f.ranks[r].present) continue;
        const int64_t x = r < ns.size() ? ns[r] : 0;
        sum += x;
        most = std::max(most, x);
      }
    }
    choices.push_back(std::move(c));
  }
  if (across_) RP_RETURN_IF_ERROR(across_->Choices(&choices));
  std::vector<int32_t> phases;
  std::map<int32_t, std::vector<size_t>> candidates;  // function -> indices into phases
  for (const BalanceChoice& c : choices) {
    if (c.first_window != window_index_ || !c.closed || c.members == 0) continue;
    // avg - min of the closing waits (PhaseFigures::Symptom), and max - avg
    // of each function (MaxOverMean), over the members.
    const double n = static_cast<double>(c.members);
    const double symptom = static_cast<double>(c.wait_sum) / n - static_cast<double>(c.wait_least);
    if (auto it = open_.find(c.phase); it != open_.end()) {
      it->second.balance_measured = true;
      it->second.what_if.clear();
    }
    phases.push_back(c.phase);
    if (symptom <= 0) continue;
    for (const auto& [function, spread] : c.functions) {
      const double excess = static_cast<double>(spread.second) - static_cast<double>(spread.first) / n;
      if (excess >= cause_share_ * symptom) candidates[function].push_back(phases.size() - 1);
    }
  }
  for (const auto& [function, which] : candidates) {
    RP_ASSIGN_OR_RETURN(
        const std::vector<int64_t> saved,
        balance_.Savings(g, attribution_, [this](int32_t rank, int32_t site, int32_t fn) { return Share(rank, site, fn); },
                         phases, function, run_start_));
    for (size_t i : which) {
      if (auto it = open_.find(phases[i]); it != open_.end()) it->second.what_if[function] = saved[i];
    }
  }
  return OkStatus();
}

void Figures::PathStep(const trace::CpSegmentRecord& s, const StreamPlace& place) {
  if (s.has_phase() || !phased_) {
    timeline_.Step(s.has_phase() ? static_cast<int32_t>(s.phase) : kNone, static_cast<int32_t>(s.rank), s.t0, s.t1,
                   place);
  }
  if (s.kind != "compute" || !s.has_site() || s.rank < 0 || s.length <= 0) return;
  if (s.rank >= (1 << 20)) return;  // a stray rank must not size the table
  std::vector<double>& by_rank = path_compute_[static_cast<int32_t>(s.site)];
  if (by_rank.size() <= static_cast<size_t>(s.rank)) by_rank.resize(s.rank + 1);
  by_rank[s.rank] += static_cast<double>(s.length);
}

std::vector<double> Figures::PathCompute(int32_t site) const {
  auto it = path_compute_.find(site);
  if (it == path_compute_.end()) return {};
  std::vector<double> out = it->second;
  size_t ranks = 0;  // a value for every rank that made calls
  for (const auto& [s, by_rank] : callers_) ranks = std::max(ranks, by_rank.size());
  if (out.size() < ranks) out.resize(ranks);
  return out;
}

void Figures::PackTables(dist::Packer* out) const {
  out->Put(run_end_);
  out->Put<uint64_t>(callers_.size());
  for (const auto& [site, by_rank] : callers_) {
    out->Put(site);
    out->Put<uint64_t>(by_rank.size());
    out->Put<uint64_t>(std::count(by_rank.begin(), by_rank.end(), true));
    for (size_t r = 0; r < by_rank.size(); ++r) {
      if (by_rank[r]) out->Put<uint64_t>(r);
    }
  }
  out->Put<uint64_t>(mix_.size());
  for (const auto& [key, mix] : mix_) {
    out->Put(key);
    out->Put(mix.ns);
    out->Put<uint64_t>(mix.functions.size());
    for (const auto& [function, ns] : mix.functions) {
      out->Put(function);
      out->Put(ns);
    }
  }
  out->Put<uint64_t>(path_compute_.size());
  for (const auto& [site, by_rank] : path_compute_) {
    out->Put(site);
    out->Put<uint64_t>(by_rank.size());
    for (double ns : by_rank) out->Put(ns);
  }
  timeline_.Pack(out);
}

Status Figures::MergeTables(dist::Unpacker* in) {
  constexpr uint64_t kMostRanks = uint64_t{1} << 24;
  run_end_ = std::max(run_end_, in->Get<int64_t>());
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    std::vector<bool>& by_rank = callers_[in->Get<int32_t>()];
    const uint64_t size = in->Get<uint64_t>();
    if (in->bad() || size > kMostRanks) return InputError("damaged run tables");
    if (by_rank.size() < size) by_rank.resize(size);
    for (uint64_t k = in->Get<uint64_t>(); k > 0 && !in->bad(); --k) {
      const uint64_t r = in->Get<uint64_t>();
      if (r >= kMostRanks) return InputError("damaged run tables");
      if (by_rank.size() <= r) by_rank.resize(r + 1);
      by_rank[r] = true;
    }
  }
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    Mix& mix = mix_[in->Get<uint64_t>()];  // a rank's: one process's
    mix.ns += in->Get<int64_t>();
    for (uint64_t k = in->Get<uint64_t>(); k > 0 && !in->bad(); --k) {
      const int32_t function = in->Get<int32_t>();
      mix.functions.emplace_back(function, in->Get<int64_t>());
    }
  }
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    std::vector<double>& by_rank = path_compute_[in->Get<int32_t>()];
    const uint64_t size = in->Get<uint64_t>();
    if (in->bad() || size > kMostRanks) return InputError("damaged run tables");
    if (by_rank.size() < size) by_rank.resize(size);
    for (uint64_t r = 0; r < size; ++r) by_rank[r] += in->Get<double>();
  }
  RP_RETURN_IF_ERROR(timeline_.Merge(in));
  return in->bad() ? InputError("damaged run tables") : OkStatus();
}

int64_t Figures::callers(int32_t site) const {
  auto it = callers_.find(site);
  return it == callers_.end() ? 0 : std::count(it->second.begin(), it->second.end(), true);
}

void Figures::Finish(std::vector<PhaseFigures>* ended) {
  attribution_.Finish();
  ended_order_.clear();
  std::vector<int32_t> open;
  for (const auto& [phase, f] : open_) open.push_back(phase);
  for (int32_t phase : open) End(phase, ended);
}

}  // namespace rp::diagnose
