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

std::vector<std::string> CodeProfile::Warnings() const {
  const profile::Counts& c = counts();
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
  if (tree().undefined_frames() > 0) {
    out.push_back(std::to_string(tree().undefined_frames()) +
                  " sample frames name sites no site record defines: left out of their stacks");
  }
  if (c.unknown_rank > 0) {
    out.push_back(std::to_string(c.unknown_rank) + " samples name ranks beyond the header's count: ignored");
  }
  return out;
}

}  // namespace rp::cpath
