#include "lib/online/function_keys.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace rp::online {
namespace {

std::string Maps() {
  std::ifstream in("/proc/self/maps");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

__attribute__((noinline)) int First(int x) { return x * 3 + 1; }
__attribute__((noinline)) int Second(int x) { return x * 5 + 2; }

uint64_t At(int (*f)(int)) { return reinterpret_cast<uint64_t>(f); }

// This test binary's own functions, found in its symbol table: any address
// inside one keys its first instruction, the same key SiteKeys gives it.
TEST(FunctionKeys, AnAddressInsideAFunctionKeysItsEntry) {
  const std::string maps = Maps();
  const SiteKeys sites(maps);
  FunctionKeys functions(sites, "librpcollect.so");
  EXPECT_EQ(First(1) + Second(1), 11);
  const uint64_t first = At(&First), second = At(&Second);
  EXPECT_EQ(functions.Key(first), sites.Key(first));
  EXPECT_EQ(functions.Key(first + 1), sites.Key(first));
  EXPECT_EQ(functions.Key(second + 2), sites.Key(second));
  EXPECT_NE(functions.Key(first), functions.Key(second));
  // Outside every mapping: the address's own key.
  EXPECT_EQ(functions.Key(8), sites.Key(8));
}

// The innermost frame outside the C library: a return address in this
// binary (its call, one byte before) under the C library's getpid (the
// sampler records the interrupted instruction plus one).
TEST(FunctionKeys, TheApplicationFrameIsTheFirstOutsideLibraries) {
  const std::string maps = Maps();
  const SiteKeys sites(maps);
  const FunctionKeys functions(sites, "librpcollect.so");
  const uint64_t libc = reinterpret_cast<uint64_t>(&::getpid), app = At(&Second) + 4;
  const uint64_t stack[] = {libc + 1, app, At(&First) + 4};
  EXPECT_EQ(functions.ApplicationFrame(stack, 3), app - 1);
  EXPECT_EQ(functions.ApplicationFrame(stack, 1), 0u);  // library code only
  // Frames in a module named like the collector are passed over.
  const SiteKeys fake("1000-2000 r-xp 00000000 08:01 1 /opt/rp/librpcollect.so\n"
                      "3000-4000 r-xp 00000000 08:01 2 /opt/app/halo\n");
  const FunctionKeys skipping(fake, "librpcollect.so");
  const uint64_t frames[] = {0x1100, 0x1200, 0x3300};
  EXPECT_EQ(skipping.ApplicationFrame(frames, 3), 0x32ffu);
}

}  // namespace
}  // namespace rp::online
