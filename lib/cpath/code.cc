#include "lib/cpath/code.h"

#include <algorithm>

namespace rp::cpath {

CodeProfile::CodeProfile(const window::Dictionary& dict) : attribution_(dict) {
  for (const trace::RankRecord& r : dict.rank_records) samples_expected_ |= r.has_samples() && r.samples > 0;
}

Status CodeProfile::AddWindow(const window::Window& w, int64_t run_start, bool zeroing) {
  RP_RETURN_IF_ERROR(attribution_.AddWindow(w, run_start));
  const bool want_cuts = zeroing && (samples_expected_ || attribution_.any_samples());
  const profile::ContextTree& t = attribution_.tree();
  cuts_.clear();
  cut_of_function_.assign(t.functions().size(), -1);
  for (uint32_t e = 0; e < w.events.size(); ++e) {
    const profile::Attribution::Computation c = attribution_.Before(e);
    // What the samples name has a what-if; a call site's computation has
    // its own (Zeroings' site what-ifs), unknown code ("?") none.
    const bool cut = want_cuts && c.method != profile::Method::kCallSite;
    for (const profile::Share* s = c.begin; s != c.end; ++s) {
      Add(time_, s->node, s->ns);
      const int32_t function = t.node(t.node(s->node).owner).function;
      if (!cut || function == 0) continue;
      int32_t& at = cut_of_function_[function];
      if (at < 0) {
        at = static_cast<int32_t>(cuts_.size());
        cuts_.push_back({function, {}});
      }
      std::vector<graph::Cut>& cuts = cuts_[at].cuts;
      if (!cuts.empty() && cuts.back().event == e) {
        cuts.back().ns += s->ns;
      } else {
        cuts.push_back({e, s->ns});
      }
    }
  }
  std::sort(cuts_.begin(), cuts_.end(),
            [](const graph::ProcedureCuts& a, const graph::ProcedureCuts& b) { return a.procedure < b.procedure; });
  return OkStatus();
}

void CodeProfile::AddSegment(const graph::Segment& s) {
  if (s.kind != graph::SegmentKind::kCompute || s.t1 <= s.t0) return;
  const profile::Method method =
      attribution_.Split(s.rank, s.t0, s.t1, s.site, [&](int32_t node, int64_t ns) { Add(cp_, node, ns); });
  cp_by_method_[static_cast<int>(method)] += s.t1 - s.t0;
}

NamedCode CodeProfile::Named() const {
  NamedCode out;
  out.sampled = sampled();
  out.counts = counts();
  out.undefined_frames = tree().undefined_frames();
  std::copy(cp_by_method_, cp_by_method_ + profile::kMethods, out.cp_by_method);
  const profile::ContextTree& t = tree();
  ForEachCharged([&](const profile::ContextTree::Node& owner, int64_t on_path, int64_t all) {
    const profile::ContextTree::Line& line = t.lines()[owner.line];
    NamedCode::Costs& c = out.lines[{t.functions()[owner.function], line.file, line.line}];
    c.on_path += on_path;
    c.all += all;
    if (!out.sampled) return;
    NamedCode::Context& context = out.contexts[{t.functions()[owner.function], t.Path(owner.parent)}];
    if (context.names.empty()) context.names = t.FunctionPath(owner.parent, owner.function);
    context.costs.on_path += on_path;
    context.costs.all += all;
  });
  return out;
}

void NamedCode::Add(const NamedCode& o) {
  sampled |= o.sampled;
  profile::Counts& c = counts;
  c.samples += o.counts.samples;
  c.outside += o.counts.outside;
  c.unweighted += o.counts.unweighted;
  c.unknown_rank += o.counts.unknown_rank;
  for (int m = 0; m < profile::kMethods; ++m) c.ns[m] += o.counts.ns[m], cp_by_method[m] += o.cp_by_method[m];
  c.ranks_with_events += o.counts.ranks_with_events;
  c.ranks_with_samples += o.counts.ranks_with_samples;
  c.unsampled_ranks += o.counts.unsampled_ranks;
  // The first 8 ranks without samples, of all.
  c.ranks_without.insert(c.ranks_without.end(), o.counts.ranks_without.begin(), o.counts.ranks_without.end());
  std::sort(c.ranks_without.begin(), c.ranks_without.end());
  if (c.ranks_without.size() > 8) c.ranks_without.resize(8);
  undefined_frames += o.undefined_frames;
  for (const auto& [key, costs] : o.lines) {
    Costs& mine = lines[key];
    mine.on_path += costs.on_path, mine.all += costs.all;
  }
  for (const auto& [key, context] : o.contexts) {
    Context& mine = contexts[key];
    if (mine.names.empty()) mine.names = context.names;
    mine.costs.on_path += context.costs.on_path, mine.costs.all += context.costs.all;
  }
}

void NamedCode::Pack(dist::Packer* out) const {
  out->Put<uint8_t>(sampled);
  const profile::Counts& c = counts;
  for (int64_t v : {c.samples, c.outside, c.unweighted, c.unknown_rank, c.ranks_with_events, c.ranks_with_samples,
                    c.unsampled_ranks, undefined_frames}) {
    out->Put(v);
  }
  for (int m = 0; m < profile::kMethods; ++m) out->Put(c.ns[m]), out->Put(cp_by_method[m]);
  out->Put<uint64_t>(c.ranks_without.size());
  for (int64_t r : c.ranks_without) out->Put(r);
  out->Put<uint64_t>(lines.size());
  for (const auto& [key, costs] : lines) {
    out->PutString(std::get<0>(key));
    out->PutString(std::get<1>(key));
    out->Put(std::get<2>(key));
    out->Put(costs);
  }
  out->Put<uint64_t>(contexts.size());
  for (const auto& [key, context] : contexts) {
    out->PutString(key.first);
    out->Put<uint64_t>(key.second.size());
    for (int64_t site : key.second) out->Put(site);
    out->Put<uint64_t>(context.names.size());
    for (const std::string& name : context.names) out->PutString(name);
    out->Put(context.costs);
  }
}

Expected<NamedCode> NamedCode::Unpack(dist::Unpacker* from) {
  dist::Unpacker& in = *from;
  NamedCode n;
  n.sampled = in.Get<uint8_t>() != 0;
  profile::Counts& c = n.counts;
  for (int64_t* v : {&c.samples, &c.outside, &c.unweighted, &c.unknown_rank, &c.ranks_with_events,
                     &c.ranks_with_samples, &c.unsampled_ranks, &n.undefined_frames}) {
    *v = in.Get<int64_t>();
  }
  for (int m = 0; m < profile::kMethods; ++m) c.ns[m] = in.Get<int64_t>(), n.cp_by_method[m] = in.Get<int64_t>();
  for (uint64_t i = in.Get<uint64_t>(); i > 0 && !in.bad(); --i) c.ranks_without.push_back(in.Get<int64_t>());
  for (uint64_t i = in.Get<uint64_t>(); i > 0 && !in.bad(); --i) {
    std::string fn = in.GetString(), file = in.GetString();
    const int64_t line = in.Get<int64_t>();
    n.lines[{std::move(fn), std::move(file), line}] = in.Get<Costs>();
  }
  for (uint64_t i = in.Get<uint64_t>(); i > 0 && !in.bad(); --i) {
    std::string fn = in.GetString();
    std::vector<int64_t> path;
    for (uint64_t k = in.Get<uint64_t>(); k > 0 && !in.bad(); --k) path.push_back(in.Get<int64_t>());
    Context context;
    for (uint64_t k = in.Get<uint64_t>(); k > 0 && !in.bad(); --k) context.names.push_back(in.GetString());
    context.costs = in.Get<Costs>();
    n.contexts[{std::move(fn), std::move(path)}] = std::move(context);
  }
  if (in.bad()) return InputError("a damaged code profile from another process");
  return n;
}

std::vector<std::string> NamedCode::Warnings() const {
  const profile::Counts& c = counts;
  std::vector<std::string> out;
  if (c.samples == 0) return out;
  const int64_t unsampled = c.unsampled_ranks;
  if (unsampled > 0) {
    std::string ranks;
    for (int64_t r : c.ranks_without) ranks += (ranks.empty() ? "" : " ") + std::to_string(r);
    if (unsampled > static_cast<int64_t>(c.ranks_without.size())) ranks += " ...";
    out.push_back(std::to_string(unsampled) + " of " + std::to_string(c.ranks_with_events) +
                  " ranks have calls but no samples (" + ranks + "): their computation counts for the calls "
                  "that end it");
  }
  if (c.outside > 0) {
    out.push_back(std::to_string(c.outside) + " samples lie in no computation of their rank (inside calls, before "
                  "MPI_Init returned or after MPI_Finalize was called) and explain nothing");
  }
  if (c.unweighted > 0) {
    out.push_back(std::to_string(c.unweighted) + " samples have no positive weight: counted with their rank's last "
                  "weight");
  }
  if (undefined_frames > 0) {
    out.push_back(std::to_string(undefined_frames) +
                  " sample frames name sites no site record defines: left out of their stacks");
  }
  if (c.unknown_rank > 0) {
    out.push_back(std::to_string(c.unknown_rank) + " samples name ranks beyond the header's count: ignored");
  }
  return out;
}

}  // namespace rp::cpath
