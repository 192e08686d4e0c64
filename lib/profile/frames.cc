#include "lib/profile/frames.h"

namespace rp::profile {
Frames::Frames(const std::vector<trace::SiteRecord>& sites) {
  for (const trace::SiteRecord& s : sites) {
    Frame& f = frames_[s.id];
    f.fn = s.has_fn() ? s.fn : "";
    f.file = s.has_file() ? s.file : "";
    f.line = s.has_line() ? s.line : 0;
    f.module = s.has_module() ? s.module : "";
    f.addr = s.has_addr() ? s.addr : "";
    f.system_module = IsSystemModule(f.module);
  }
}

bool Frames::InlinedInto(int64_t inner, int64_t outer) const {
  const Frame* a = Find(inner);
  const Frame* b = Find(outer);
  // The levels of one address have consecutive ids (rp-record numbers
  // them innermost first); a recursive call repeats the same id.
  return outer == inner + 1 && a != nullptr && b != nullptr && !a->addr.empty() && a->addr == b->addr &&
         a->module == b->module;
}

}  // namespace rp::profile
