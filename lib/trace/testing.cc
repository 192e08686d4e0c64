#include "lib/trace/testing.h"

#include <gtest/gtest.h>

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
