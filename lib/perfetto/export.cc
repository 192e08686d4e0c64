#include "lib/perfetto/export.h"

#include <algorithm>
#include <span>
#include <unordered_map>
#include <vector>

#include "lib/match/match.h"
#include "lib/mpi/functions.h"
#include "lib/perfetto/trace_writer.h"
#include "lib/profile/attribution.h"
#include "lib/trace/codec.h"
#include "lib/window/window.h"

namespace rp::perfetto {
namespace {

using window::kNone;

constexpr uint32_t kPathSequence = 1;
uint32_t RankSequence(int32_t rank) { return static_cast<uint32_t>(rank) + 2; }

class Exporter {
 public:
  Exporter(const window::Dictionary& dict, TraceWriter& out, const ExportOptions& options)
      : dict_(dict), out_(out), options_(options), attribution_(dict, profile::ShareOrder::kByTime) {
    const std::string root = dict.ranks > 0 ? "MPI run, " + std::to_string(dict.ranks) + " ranks" : "MPI run";
    root_ = out_.Track(root, 0, 0, true);
    for (const char* name : {"peer", "tag", "bytes", "comm", "root", "seq", "length"}) arg_names_.push_back(out_.Name(name));
  }

  Status AddWindow(const window::Window& w);
  void Finish();
  ExportCounts counts;

 private:
  enum ArgName { kPeer, kTag, kBytes, kComm, kRoot, kSeq, kLength };
  struct Rank {
    uint64_t track = 0, code_track = 0;
    int64_t end = INT64_MIN;       // of its last call slice
    std::vector<int32_t> open;     // code track: functions open, outermost first
    int64_t code_end = INT64_MIN;  // end of the last code span
    int32_t leaf = profile::ContextTree::kRoot;  // its context
  };
  bool Selected(const window::Event& e) const {
    if (options_.phase >= 0) return e.phase == options_.phase;
    return e.t1 >= options_.begin && e.t0 <= options_.end;
  }
  Rank& RankOf(int32_t rank);
  Status Call(const window::Window& w, uint32_t e);
  // The calling context of `node`, outermost function first, into path_.
  void PathOf(int32_t node);
  // How many of the rank's open functions path_ shares with them.
  size_t Common(const Rank& r) const;
  // How many of them lie outside an MPI call at `site`: through the
  // innermost that is the function making the call (0 when the site names
  // no open function).
  size_t Callers(const Rank& r, int32_t site);
  // Ends the rank's open functions beyond the first `keep`, at the end of
  // its last span.
  void CloseTo(Rank& r, int32_t rank, size_t keep);
  Status PathSteps(const window::Window& w);
  int32_t FunctionName(int32_t function);
  int32_t CallName(const window::Window& w, const window::Event& e);
  int32_t SiteLocation(int32_t site);
  // The site record of `site`, nullptr when none defines it.
  const trace::SiteRecord* Site(int32_t site);

  const window::Dictionary& dict_;
  TraceWriter& out_;
  const ExportOptions& options_;
  profile::Attribution attribution_;
  bool started_ = false;
  int64_t run_start_ = 0;
  uint64_t root_ = 0, path_track_ = 0;
  int64_t path_end_ = INT64_MIN;
  std::vector<Rank> ranks_;
  std::vector<int32_t> arg_names_;
  std::vector<int32_t> call_names_, function_names_;  // writer name ids, -1 unknown yet
  std::unordered_map<int64_t, int32_t> locations_;    // by site id
  std::unordered_map<int64_t, const trace::SiteRecord*> sites_;
  size_t sites_seen_ = 0;
  // Flows of the window by event: the ids starting at event e are
  // flows_[0].ids[flows_[0].at[e] .. flows_[0].at[e + 1]), those ending
  // there flows_[1]'s.
  struct FlowIndex {
    std::vector<uint32_t> at;
    std::vector<uint64_t> ids;
    void Build(size_t events, const std::vector<std::pair<uint32_t, uint64_t>>& pairs);
    std::span<const uint64_t> Of(uint32_t e) const {
      return {ids.data() + at[e], ids.data() + at[e + 1]};
    }
  };
  std::vector<std::pair<uint32_t, uint64_t>> starts_, ends_;  // (event, flow id)
  FlowIndex flows_[2];
  uint64_t next_flow_ = 1;
  int64_t kept_min_ = INT64_MAX, kept_max_ = INT64_MIN;  // selected calls' span
  std::vector<int32_t> path_, next_path_;
  std::vector<TraceWriter::Arg> args_;
  trace::LineDecoder decoder_;
  trace::Record record_;
};

void Exporter::FlowIndex::Build(size_t events, const std::vector<std::pair<uint32_t, uint64_t>>& pairs) {
  at.assign(events + 1, 0);
  for (const auto& [e, id] : pairs) ++at[e + 1];
  for (size_t e = 0; e < events; ++e) at[e + 1] += at[e];
  ids.resize(pairs.size());
  std::vector<uint32_t> next(at.begin(), at.end() - 1);
  for (const auto& [e, id] : pairs) ids[next[e]++] = id;  // in flow id order within an event
}

Exporter::Rank& Exporter::RankOf(int32_t rank) {
  if (static_cast<size_t>(rank) >= ranks_.size()) ranks_.resize(rank + 1);
  Rank& r = ranks_[rank];
  if (r.track == 0) {
    r.track = out_.Track("rank " + std::to_string(rank), root_, rank, false);
    out_.DefaultTrack(RankSequence(rank), r.track);
    ++counts.ranks;
  }
  return r;
}

int32_t Exporter::FunctionName(int32_t function) {
  if (static_cast<size_t>(function) >= function_names_.size()) function_names_.resize(function + 1, -1);
  int32_t& id = function_names_[function];
  if (id < 0) id = out_.Name(attribution_.tree().functions()[function]);
  return id;
}

int32_t Exporter::CallName(const window::Window& w, const window::Event& e) {
  if (e.fn < 0) {  // a function the MPI table does not know: its record names it
    if (!decoder_.DecodeCopy(w.text(w.lines[e.line]), &record_).ok()) return out_.Name("MPI call");
    return out_.Name(record_.mpi.fn);
  }
  if (static_cast<size_t>(e.fn) >= call_names_.size()) call_names_.resize(e.fn + 1, -1);
  int32_t& id = call_names_[e.fn];
  if (id < 0) id = out_.Name(mpi::kFunctions[e.fn].name);
  return id;
}

const trace::SiteRecord* Exporter::Site(int32_t site) {
  if (sites_seen_ != dict_.sites.size()) {  // later dictionary records are honoured too
    for (const trace::SiteRecord& s : dict_.sites) sites_[s.id] = &s;
    sites_seen_ = dict_.sites.size();
  }
  auto it = sites_.find(site);
  return it == sites_.end() ? nullptr : it->second;
}

int32_t Exporter::SiteLocation(int32_t site) {
  if (site == kNone) return -1;
  auto [it, added] = locations_.try_emplace(site, -1);
  if (added) {
    const trace::SiteRecord* s = Site(site);
    if (s != nullptr && (s->has_fn() || s->has_file())) {
      it->second = out_.Location(s->has_file() ? s->file : "", s->has_fn() ? s->fn : "", s->has_line() ? s->line : 0);
    }
  }
  return it->second;
}

Status Exporter::Call(const window::Window& w, uint32_t e) {
  const window::Event& ev = w.events[e];
  Rank& r = RankOf(ev.rank);
  int64_t t0 = ev.t0, t1 = ev.t1;
  if (t0 < r.end) {  // overlaps the previous call: slices on a track must nest
    ++counts.clipped;
    t0 = r.end;
  }
  t1 = std::max(t1, t0);
  r.end = t1;
  args_.clear();
  if (ev.peer != kNone) args_.push_back({arg_names_[kPeer], ev.peer});
  if (ev.tag != kNone) args_.push_back({arg_names_[kTag], ev.tag});
  if (ev.bytes != 0) args_.push_back({arg_names_[kBytes], ev.bytes});
  if (ev.comm != kNone && ev.comm != 0) args_.push_back({arg_names_[kComm], ev.comm});
  if (ev.root != kNone) args_.push_back({arg_names_[kRoot], ev.root});
  args_.push_back({arg_names_[kSeq], ev.seq});
  TraceWriter::Slice slice;
  slice.name = CallName(w, ev);
  slice.location = SiteLocation(ev.site);
  slice.args = args_;
  slice.flows = flows_[0].Of(e);
  slice.terminating_flows = flows_[1].Of(e);
  out_.Begin(RankSequence(ev.rank), r.track, t0, slice);
  out_.End(RankSequence(ev.rank), r.track, t1);
  ++counts.calls;
  kept_min_ = std::min(kept_min_, t0);
  kept_max_ = std::max(kept_max_, t1);
  return OkStatus();
}

void Exporter::PathOf(int32_t node) {
  path_.clear();
  const profile::ContextTree& tree = attribution_.tree();
  for (int32_t n = node; n != profile::ContextTree::kRoot && n >= 0; n = tree.node(n).parent) {
    path_.push_back(tree.node(n).function);
  }
  std::reverse(path_.begin(), path_.end());
}

size_t Exporter::Common(const Rank& r) const {
  size_t common = 0;
  while (common < r.open.size() && common < path_.size() && r.open[common] == path_[common]) ++common;
  return common;
}

size_t Exporter::Callers(const Rank& r, int32_t site) {
  if (site == kNone || r.open.empty()) return 0;
  const trace::SiteRecord* s = Site(site);
  if (s == nullptr || !s->has_fn()) return 0;
  const int32_t function = attribution_.tree().FindFunction(s->fn);
  for (size_t i = r.open.size(); i > 0; --i) {
    if (r.open[i - 1] == function) return i;
  }
  return 0;
}

void Exporter::CloseTo(Rank& r, int32_t rank, size_t keep) {
  while (r.open.size() > keep) {
    out_.End(RankSequence(rank), r.code_track, r.code_end);
    r.open.pop_back();
  }
}

Status Exporter::PathSteps(const window::Window& w) {
  for (const window::Line& line : w.lines) {
    if (line.type != trace::RecordType::kCpSegment) continue;
    RP_RETURN_IF_ERROR(decoder_.DecodeCopy(w.text(line), &record_));
    const trace::CpSegmentRecord& s = record_.cp_segment;
    int64_t t0 = s.t0, t1 = s.t1;
    if (options_.phase >= 0) {
      if (s.has_phase() ? s.phase != options_.phase : (t1 < kept_min_ || t0 > kept_max_)) continue;
    } else {
      if (t1 < options_.begin || t0 > options_.end) continue;
      t0 = std::max(t0, options_.begin);
      t1 = std::min(t1, options_.end);
    }
    if (path_track_ == 0) path_track_ = out_.Track("critical path", root_, -1, false);
    if (t0 < path_end_) {
      ++counts.clipped;
      t0 = path_end_;
    }
    t1 = std::max(t1, t0);
    path_end_ = t1;
    std::string name = "rank ";
    if (s.kind == "transfer" && s.has_peer()) name += std::to_string(s.peer) + "\u2192";
    name += std::to_string(s.rank) + " ";
    name += s.kind == "mpi" && s.has_call() ? s.call : s.kind;
    args_.clear();
    args_.push_back({arg_names_[kLength], s.length});
    TraceWriter::Slice slice;
    slice.name = out_.Name(name);
    slice.location = s.has_site() ? SiteLocation(static_cast<int32_t>(s.site)) : -1;
    slice.args = args_;
    out_.Begin(kPathSequence, path_track_, t0, slice);
    out_.End(kPathSequence, path_track_, t1);
    ++counts.path_steps;
  }
  return OkStatus();
}

Status Exporter::AddWindow(const window::Window& w) {
  if (!started_ && !w.events.empty()) {
    started_ = true;
    run_start_ = window::ApplicationStart(w);
  }
  RP_RETURN_IF_ERROR(attribution_.AddWindow(w, run_start_));
  // Messages as flows: from the call that sent to the call that completed
  // the receive.
  const match::Matching m = match::Match(w, dict_);
  counts.unmatched += m.unmatched_sends + m.unmatched_receives;
  starts_.clear();
  ends_.clear();
  for (const match::Message& msg : m.messages) {
    const bool from = Selected(w.events[msg.send]), to = Selected(w.events[msg.recv_done]);
    if (from && to) {
      starts_.emplace_back(msg.send, next_flow_);
      ends_.emplace_back(msg.recv_done, next_flow_);
      ++next_flow_;
      ++counts.flows;
    } else if (from || to) {
      ++counts.flows_cut;
    }
  }
  flows_[0].Build(w.events.size(), starts_);
  flows_[1].Build(w.events.size(), ends_);
  for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
    const std::vector<uint32_t>& events = w.by_rank[rank];
    for (size_t k = 0; k < events.size(); ++k) {
      const uint32_t e = events[k];
      const window::Event& ev = w.events[e];
      const profile::Attribution::Computation c = attribution_.Before(e);
      // Drawn only where samples say: not a computation charged to the
      // nearest sample's context or to its call site.
      const bool code = c.method == profile::Method::kSampled && c.begin != c.end;
      // The computation: inside the selection (clipped to a time window).
      const bool keep = options_.phase >= 0 ? Selected(ev) : c.t1 >= options_.begin && c.t0 <= options_.end;
      if (code && keep) {
        Rank& r = RankOf(ev.rank);
        if (r.code_track == 0) {
          r.code_track = out_.Track("rank " + std::to_string(ev.rank) + " code", r.track, 0, false);
        }
        int64_t t = c.t0;
        for (const profile::Share* s = c.begin; s != c.end; ++s) {
          int64_t a = t, b = t + s->ns;
          t = b;
          if (options_.phase < 0) {
            a = std::max(a, options_.begin);
            b = std::min(b, options_.end);
            if (a > b) continue;
          }
          PathOf(s->node);
          CloseTo(r, ev.rank, Common(r));
          for (size_t i = r.open.size(); i < path_.size(); ++i) {
            TraceWriter::Slice slice;
            slice.name = FunctionName(path_[i]);
            out_.Begin(RankSequence(ev.rank), r.code_track, a, slice);
            r.open.push_back(path_[i]);
            ++counts.code_slices;
          }
          r.code_end = b;
          r.leaf = s->node;
        }
      }
      if (static_cast<size_t>(ev.rank) < ranks_.size() && !ranks_[ev.rank].open.empty()) {
        // When the call is made by one of the open functions (its site's),
        // those inside it have returned; else the last sampled application
        // function and those inside it have. Of the others, what the rank's
        // next computation in the window does not share has returned too.
        // Both end now, before the call, so that the rank's events stay in
        // time order.
        Rank& r = ranks_[ev.rank];
        size_t keep = Callers(r, ev.site);
        if (keep == 0) {  // made by a function not sampled: not by the last one sampled, but maybe by its callers
          const profile::ContextTree& tree = attribution_.tree();
          keep = static_cast<size_t>(std::max(tree.node(tree.node(r.leaf).owner).depth - 1, 0));
        }
        for (size_t j = k + 1; j < events.size(); ++j) {
          const profile::Attribution::Computation n = attribution_.Before(events[j]);
          if (n.method != profile::Method::kSampled || n.begin == n.end) continue;
          PathOf(n.begin->node);
          keep = std::min(keep, Common(r));
          break;
        }
        CloseTo(r, ev.rank, keep);
      }
      if (Selected(ev)) RP_RETURN_IF_ERROR(Call(w, e));
    }
  }
  RP_RETURN_IF_ERROR(PathSteps(w));
  attribution_.ForgetBefore(INT64_MAX);
  return OkStatus();
}

void Exporter::Finish() {
  attribution_.Finish();
  for (size_t rank = 0; rank < ranks_.size(); ++rank) CloseTo(ranks_[rank], static_cast<int32_t>(rank), 0);
}

}  // namespace

Expected<ExportCounts> Export(trace::InputSet& input, std::unique_ptr<trace::ByteSink> out,
                              const ExportOptions& options) {
  window::WindowReader reader(input, window::Boundaries::kClean, options.read);
  RP_RETURN_IF_ERROR(reader.Start());
  TraceWriter writer(std::move(out));
  Exporter exporter(reader.dictionary(), writer, options);
  window::Window w;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, reader.Next(&w));
    if (!more) break;
    RP_RETURN_IF_ERROR(exporter.AddWindow(w));
  }
  exporter.Finish();
  RP_RETURN_IF_ERROR(writer.Close());
  ExportCounts counts = exporter.counts;
  counts.packets = writer.packets();
  counts.bytes_in = writer.bytes_in();
  return counts;
}

}  // namespace rp::perfetto
