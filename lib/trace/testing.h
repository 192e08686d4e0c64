// Test helpers: a trace in memory as a stage's input, a stage's output
// into a string, and that output's records.
//
//   std::string out;
//   trace::InputSet input = trace::TextInput(text);
//   auto writer = trace::TextOutput(&out);
//   ASSERT_TRUE(phases::Run({}, input, *writer).ok());
//   for (const trace::Record& r : trace::Records(out)) ...
#ifndef RP_LIB_TRACE_TESTING_H_
#define RP_LIB_TRACE_TESTING_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/trace/input_set.h"
#include "lib/trace/record.h"
#include "lib/trace/writer.h"

namespace rp::trace {

// `text` (NDJSON) as the only input, named "test.ndjson"; it can be rewound.
InputSet TextInput(std::string text);
// A writer appending to *text.
std::unique_ptr<Writer> TextOutput(std::string* text);
// The lines of `text` (without their newlines).
std::vector<std::string> Lines(std::string_view text);
// The lines of `text` whose record type is `type`.
std::vector<std::string> LinesOfType(std::string_view text, std::string_view type);
// The records of `text`, decoded (Record::line is left empty).
std::vector<Record> Records(std::string_view text);

// `merged` (a whole trace, time-ordered) written as trace::SplitWriter
// writes it: one file per group of ranks {first, last} and an index, in
// the test's directory as NAME.partK.ndjson and NAME.ndjson. Returns the
// index's path.
std::string WriteSplit(const std::string& name, std::string_view merged,
                       const std::vector<std::pair<int, int>>& groups);

// A stage run on `trace` in memory: what it returned and wrote.
struct StageOutput {
  Status status;
  std::string text;
};
StageOutput RunStage(const std::function<Status(InputSet&, Writer&)>& stage, std::string trace);

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_TESTING_H_
