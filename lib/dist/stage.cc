#include "lib/dist/stage.h"

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

}  // namespace rp::dist
