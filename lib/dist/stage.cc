#include "lib/dist/stage.h"

#include <algorithm>
#include <vector>

namespace rp::dist {

Status WindowStage::Run() {
  input_.SelectParts(comm_.rank(), comm_.size());
  windows_.SetJudge(&judge_);
  RP_RETURN_IF_ERROR(Start());
  window::Window w;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, windows_.Next(&w));
    if (!more) break;
    RP_RETURN_IF_ERROR(AddWindow(w));
  }
  return Finish();
}

Status WindowStage::PassLines(const window::Window& w, bool passthrough) {
  const window::Line* last = nullptr;  // its lines are in the stream's order
  for (const window::Line& line : w.lines) {
    if (passthrough && out_.part()) {
      RP_RETURN_IF_ERROR(out_.WriteLine(w.text(line), line.rank >= 0 ? line.time : INT64_MIN));
    }
    if (line.rank >= 0) last = &line;
  }
  if (last != nullptr) {
    RP_ASSIGN_OR_RETURN(last_, placer_.Of(w.text(*last), comm_.rank()));
  }
  return OkStatus();
}

Expected<int> WindowStage::Writer(bool passthrough) {
  RP_ASSIGN_OR_RETURN(const Latest latest, AllreduceValue(comm_, Latest{last_}));
  return passthrough && latest.place.process >= 0 ? static_cast<int>(latest.place.process) : 0;
}

Status WindowStage::WriteAfterLines(std::string_view text, bool passthrough) {
  if (!passthrough) return out_.index()->WriteText(text);
  out_.Count(std::count(text.begin(), text.end(), '\n'));
  return out_.part()->WriteText(text);
}

Status WindowStage::SendToWriter(int writer, std::string text, bool passthrough) {
  std::vector<std::string> bytes(comm_.size());
  bytes[writer] = std::move(text);
  RP_ASSIGN_OR_RETURN(const std::vector<std::string> in, comm_.Alltoallv(bytes));
  if (comm_.rank() != writer || in[0].empty()) return OkStatus();
  return WriteAfterLines(in[0], passthrough);
}

}  // namespace rp::dist
