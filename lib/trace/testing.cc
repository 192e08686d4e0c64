#include "lib/trace/testing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "lib/trace/codec.h"
#include "lib/trace/io.h"

namespace rp::trace {

InputSet TextInput(std::string text) {
  return InputSet({[text] { return Expected<std::unique_ptr<ByteSource>>(MemoryInput("test.ndjson", text)); }}, {});
}

std::unique_ptr<Writer> TextOutput(std::string* text) { return std::make_unique<Writer>(StringOutput(text)); }

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t begin = 0;
  for (size_t end; (end = text.find('\n', begin)) != std::string_view::npos; begin = end + 1) {
    lines.emplace_back(text.substr(begin, end - begin));
  }
  if (begin < text.size()) lines.emplace_back(text.substr(begin));
  return lines;
}

std::vector<std::string> LinesOfType(std::string_view text, std::string_view type) {
  const std::string key = "{\"type\":\"" + std::string(type) + "\"";
  std::vector<std::string> out;
  for (const std::string& line : Lines(text)) {
    if (line.compare(0, key.size(), key) == 0) out.push_back(line);
  }
  return out;
}

std::string WriteSplit(const std::string& name, std::string_view merged,
                       const std::vector<std::pair<int, int>>& groups) {
  const std::string dir = ::testing::TempDir() + "/";
  std::string index;
  size_t last = SIZE_MAX;  // the part of the last event
  std::vector<std::string> parts(groups.size());
  std::vector<int64_t> records(groups.size(), 0), t0(groups.size(), INT64_MAX), t1(groups.size(), INT64_MIN);
  LineDecoder decoder;
  Record record;
  for (const std::string& line : Lines(merged)) {
    EXPECT_TRUE(decoder.DecodeCopy(line, &record).ok()) << line;
    const bool event = record.type == RecordType::kMpi || record.type == RecordType::kSample;
    if (record.type == RecordType::kHeader) {
      for (std::string& part : parts) part += line + "\n";
    }
    if (!event) {  // before the first event: the index's; after: it follows the event before it
      if (last == SIZE_MAX) {
        index += line + "\n";
      } else {
        parts[last] += line + "\n";
        ++records[last];
      }
      continue;
    }
    const int64_t rank = record.type == RecordType::kMpi ? record.mpi.rank : record.sample.rank;
    const int64_t time = record.type == RecordType::kMpi ? record.mpi.t0 : record.sample.t;
    for (size_t k = 0; k < groups.size(); ++k) {
      if (rank < groups[k].first || rank > groups[k].second) continue;
      parts[k] += line + "\n";
      ++records[k];
      last = k;
      t0[k] = std::min(t0[k], time);
      t1[k] = std::max(t1[k], time);
    }
  }
  for (size_t k = 0; k < groups.size(); ++k) {
    const std::string file = name + ".part" + std::to_string(k) + ".ndjson";
    std::ofstream(dir + file, std::ios::binary) << parts[k];
    PartRecord part;
    part.set_file(file);
    part.set_first_rank(groups[k].first);
    part.set_last_rank(groups[k].second);
    part.set_records(records[k]);
    if (records[k] > 0) {
      part.set_t0(t0[k]);
      part.set_t1(t1[k]);
    }
    Encode(part, &index);
  }
  std::ofstream(dir + name + ".ndjson", std::ios::binary) << index;
  return dir + name + ".ndjson";
}

StageOutput RunStage(const std::function<Status(InputSet&, Writer&)>& stage, std::string trace) {
  StageOutput out;
  InputSet input = TextInput(std::move(trace));
  Writer writer(StringOutput(&out.text));
  out.status = stage(input, writer);
  return out;
}

std::vector<Record> Records(std::string_view text) {
  std::vector<Record> records;
  LineDecoder decoder;
  for (const std::string& line : Lines(text)) {
    Record record;
    const Status status = decoder.DecodeCopy(line, &record);
    EXPECT_TRUE(status.ok()) << status.message() << " in " << line;
    record.line = {};
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace rp::trace
