#include "lib/online/site_keys.h"

#include <gtest/gtest.h>

namespace rp::online {
namespace {

// Two processes running the same binaries at different addresses (ASLR):
// the same call sites get the same keys.
TEST(SiteKeys, TheSameSiteHasTheSameKeyWhereverItIsMapped) {
  const SiteKeys a(
      "55d0a0001000-55d0a0005000 r-xp 00001000 08:01 42 /opt/app/halo\n"
      "7f1200020000-7f1200180000 r-xp 00022000 08:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6\n");
  const SiteKeys b(
      "7f9900028000-7f9900188000 r-xp 00022000 08:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "5612b0001000-5612b0005000 r-xp 00001000 08:01 42 /opt/app/halo\n");
  // halo's file offset 0x1234: at 0x55d0a0001000 + 0x234 and 0x5612b0001000 + 0x234.
  const uint64_t ka = a.Key(0x55d0a0001234), kb = b.Key(0x5612b0001234);
  EXPECT_EQ(ka, kb);
  EXPECT_EQ(SiteKeys::FileOffset(ka), 0x1234u);
  ASSERT_NE(a.Module(ka), nullptr);
  EXPECT_EQ(*a.Module(ka), "/opt/app/halo");
  // libc's offset 0x22000 + 0x10: the same in both, another module.
  const uint64_t la = a.Key(0x7f1200020010), lb = b.Key(0x7f9900028010);
  EXPECT_EQ(la, lb);
  EXPECT_NE(la, ka);
  EXPECT_EQ(SiteKeys::FileOffset(la), 0x22010u);
  // Back to each process's own address.
  EXPECT_EQ(a.Address(kb), 0x55d0a0001234u);
  EXPECT_EQ(b.Address(ka), 0x5612b0001234u);
  EXPECT_EQ(b.Address(la), 0x7f9900028010u);
  EXPECT_EQ(SiteKeys("").Address(ka), 0u);
}

TEST(SiteKeys, AnAddressOutsideEveryMappingKeepsItsValue) {
  const SiteKeys k("1000-2000 r-xp 00000000 08:01 1 /bin/x\nnot a line\n3000-2000 r-xp 0 0 0 /bad\n");
  EXPECT_EQ(k.Key(0x2000), 0x2000 | SiteKeys::kUnmapped);  // the end is outside
  EXPECT_EQ(k.Key(0x500), 0x500 | SiteKeys::kUnmapped);
  EXPECT_EQ(k.Module(k.Key(0x500)), nullptr);
  EXPECT_EQ(SiteKeys::FileOffset(k.Key(0x1fff)), 0xfffu);
  EXPECT_EQ(k.Address(k.Key(0x500)), 0x500u);
}

}  // namespace
}  // namespace rp::online
