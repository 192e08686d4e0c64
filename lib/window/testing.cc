#include "lib/window/testing.h"

#include <gtest/gtest.h>

#include <fstream>

namespace rp::window {

std::string TestHeader(int ranks) {
  std::string members;
  for (int r = 0; r < ranks; ++r) members += (r ? "," : "") + std::to_string(r);
  return R"({"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":)" + std::to_string(ranks) +
         "}\n" + R"({"type":"comm","id":0,"size":)" + std::to_string(ranks) + R"(,"ranks":[)" + members +
         "]}\n";
}

std::string TestMpi(int rank, int seq, const std::string& fn, int64_t t0, int64_t t1, const std::string& extra) {
  const bool has_comm = extra.find("\"comm\"") != std::string::npos;
  return R"({"type":"mpi","rank":)" + std::to_string(rank) + R"(,"seq":)" + std::to_string(seq) +
         R"(,"fn":")" + fn + R"(","t0":)" + std::to_string(t0) + R"(,"t1":)" + std::to_string(t1) +
         (has_comm ? "" : R"(,"comm":0)") + extra + "}\n";
}

TestWindows ReadWindows(const std::string& text) {
  static int counter = 0;
  const std::string path = ::testing::TempDir() + "/test-windows-" + std::to_string(counter++) + ".ndjson";
  std::ofstream(path) << text;
  trace::InputSet input(std::vector<std::string>{path}, {});
  WindowReader reader(input);
  TestWindows out;
  Status status = reader.Start();
  EXPECT_TRUE(status.ok()) << status.message();
  for (;;) {
    Window window;
    auto more = reader.Next(&window);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !*more) break;
    out.windows.push_back(std::move(window));
  }
  out.dict = reader.dictionary();
  return out;
}

TestTrace ReadOneWindow(const std::string& text) {
  TestWindows all = ReadWindows(text);
  TestTrace out;
  EXPECT_FALSE(all.windows.empty());
  if (!all.windows.empty()) out.window = std::move(all.windows.front());
  out.dict = std::move(all.dict);
  return out;
}

}  // namespace rp::window
