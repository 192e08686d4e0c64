#include "lib/phases/phase_ends.h"

#include <algorithm>

namespace rp::phases {

using window::kNone;

Status PhaseEnds::NoteRecord(std::string_view line) {
  RP_RETURN_IF_ERROR(decoder_.DecodeCopy(line, &record_));
  const int32_t id = static_cast<int32_t>(record_.phase.id);
  if (record_.phase.has_cluster()) cluster_[id] = record_.phase.cluster;
  if (record_.phase.has_events()) expected_[id] = record_.phase.events;
  return OkStatus();
}

Status PhaseEnds::NoteRecords(const window::Dictionary& dict) {
  for (size_t i = 0; i < dict.prelude_types.size(); ++i) {
    if (dict.prelude_types[i] == trace::RecordType::kPhase) RP_RETURN_IF_ERROR(NoteRecord(dict.prelude_lines[i]));
  }
  return OkStatus();
}

Status PhaseEnds::NoteRecords(const window::Window& w) {
  for (const window::Line& r : w.lines) {
    if (r.type == trace::RecordType::kPhase) RP_RETURN_IF_ERROR(NoteRecord(w.text(r)));
  }
  return OkStatus();
}

bool PhaseEnds::Phased(const window::Window& first) const {
  return any_records() ||
         std::any_of(first.events.begin(), first.events.end(), [](const window::Event& e) { return e.phase != kNone; });
}

int64_t PhaseEnds::cluster(int32_t phase) const {
  const auto it = cluster_.find(phase);
  return it == cluster_.end() ? -1 : it->second;
}

std::map<int32_t, int64_t> PhaseEnds::Calls(const window::Window& w) {
  std::map<int32_t, int64_t> calls;
  for (const window::Event& e : w.events) {
    if (!e.ghost()) ++calls[e.phase];  // a ghost is its holder's to count
  }
  return calls;
}

std::vector<int32_t> PhaseEnds::EndedBefore(const std::map<int32_t, int64_t>& calls) {
  std::vector<int32_t> ended;
  for (auto it = open_.begin(); it != open_.end();) {
    if (calls.count(*it) == 0) {
      ended.push_back(*it);
      seen_.erase(*it);
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  return ended;
}

std::vector<int32_t> PhaseEnds::EndedIn(const std::map<int32_t, int64_t>& calls) {
  std::vector<int32_t> ended;
  if (calls.empty()) return ended;
  const int32_t last = calls.rbegin()->first;
  for (const auto& [phase, n] : calls) {
    if (phase == kNone) continue;
    if (phase <= done_until_ && open_.count(phase) == 0) reopened_ = true;
    const auto expected = expected_.find(phase);
    const int64_t seen = seen_[phase] += n;
    if (phase != last || (expected != expected_.end() && seen >= expected->second)) {
      ended.push_back(phase);
      open_.erase(phase);
      seen_.erase(phase);
      done_until_ = std::max(done_until_, phase);
    } else {
      open_.insert(phase);
    }
  }
  return ended;
}

}  // namespace rp::phases
