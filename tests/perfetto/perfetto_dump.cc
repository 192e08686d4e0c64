// Prints a Perfetto trace as rp's reader (lib/perfetto/trace_reader.h)
// decodes it, one JSON object per line: tracks, then slices. For the
// tests, which compare it with protoc's decoding and with the rp stream.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "lib/perfetto/trace_reader.h"

namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

template <typename T>
std::string List(const std::vector<T>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: perfetto_dump TRACE\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  rp::Expected<rp::perfetto::DecodedTrace> t = rp::perfetto::DecodeTrace(bytes.str());
  if (!t.ok()) {
    std::fprintf(stderr, "perfetto_dump: %s\n", t.status().message().c_str());
    return 2;
  }
  std::map<uint64_t, std::string> names;
  for (const rp::perfetto::Track& track : t->tracks) names[track.uuid] = track.name;
  for (const rp::perfetto::Track& track : t->tracks) {
    std::cout << "{\"track\":" << Quote(track.name) << ",\"parent\":" << Quote(names[track.parent])
              << ",\"order\":" << track.order << ",\"explicit\":" << (track.explicit_children ? "true" : "false")
              << "}\n";
  }
  for (const rp::perfetto::Slice& s : t->slices) {
    std::cout << "{\"slice\":" << Quote(names[s.track]) << ",\"name\":" << Quote(s.name) << ",\"ts\":" << s.ts
              << ",\"dur\":" << s.dur << ",\"depth\":" << s.depth << ",\"args\":{";
    for (size_t i = 0; i < s.args.size(); ++i) {
      std::cout << (i ? "," : "") << Quote(s.args[i].first) << ":" << s.args[i].second;
    }
    std::cout << "},\"flows\":" << List(s.flows) << ",\"in\":" << List(s.terminating_flows)
              << ",\"file\":" << Quote(s.file) << ",\"line\":" << s.line << "}\n";
  }
  if (t->unterminated > 0) {
    std::fprintf(stderr, "perfetto_dump: %lld slices never ended\n", static_cast<long long>(t->unterminated));
    return 1;
  }
  return 0;
}
