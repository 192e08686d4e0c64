#include "lib/match/match.h"

#include "lib/match/matcher.h"

namespace rp::match {

Matching Match(const window::Window& window, const window::Dictionary& dict) {
  return internal::Matcher(window, dict).Run();
}

}  // namespace rp::match
