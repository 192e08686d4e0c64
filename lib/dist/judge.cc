#include "lib/dist/judge.h"

#include <cstring>
#include <type_traits>

namespace rp::dist {

static_assert(std::is_trivially_copyable_v<window::SyncParts>);

Expected<window::SyncParts> CommJudge::Judge(const window::SyncParts& mine) {
  ++calls_;
  return AllreduceValue(comm_, mine);
}

}  // namespace rp::dist
