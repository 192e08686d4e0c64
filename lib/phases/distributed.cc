#include "lib/phases/distributed.h"

#include <string>

namespace rp::phases {

Status SharedPhaseEnds::Share(dist::Comm& comm, const window::Window& w) {
  dist::Packer mine;
  const std::map<int32_t, int64_t> calls = PhaseEnds::Calls(w);
  mine.Put<uint64_t>(calls.size());
  for (const auto& [phase, n] : calls) {
    mine.Put(phase);
    mine.Put(n);
  }
  for (const window::Line& line : w.lines) {
    if (line.type == trace::RecordType::kPhase) mine.PutString(w.text(line));
  }
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm.Allgather(mine.bytes()));
  calls_.clear();
  for (size_t p = 0; p < all.size(); ++p) {
    dist::Unpacker in(all[p]);
    for (uint64_t n = in.Get<uint64_t>(); n > 0 && !in.bad(); --n) {
      const int32_t phase = in.Get<int32_t>();
      calls_[phase] += in.Get<int64_t>();
    }
    while (!in.done() && !in.bad()) RP_RETURN_IF_ERROR(ends_.NoteRecord(in.GetString()));
    if (in.bad()) return InputError("process " + std::to_string(p) + " sent damaged phase ends");
  }
  return OkStatus();
}

bool SharedPhaseEnds::Phased() const {
  if (ends_.any_records()) return true;
  for (const auto& [phase, n] : calls_) {
    if (phase != window::kNone) return true;
  }
  return false;
}

}  // namespace rp::phases
