// A ByteSink whose lines are decoded back into records and handed to a
// function: a stage's Writer pointed at it gives its records to the caller
// without a file (reports render them, rp-diagnose --compare keeps them).
//
//   trace::Writer writer(trace::RecordSink("<report>", [&](const trace::Record& r) { report.Add(r); }));
//   RP_RETURN_IF_ERROR(stage::Run(config, input, writer));
#ifndef RP_LIB_TRACE_RECORD_SINK_H_
#define RP_LIB_TRACE_RECORD_SINK_H_

#include <functional>
#include <memory>
#include <string>

#include "lib/trace/io.h"
#include "lib/trace/record.h"

namespace rp::trace {

// Malformed lines are an error naming `name` and the line's number.
std::unique_ptr<ByteSink> RecordSink(std::string name, std::function<void(const Record&)> take);

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_RECORD_SINK_H_
