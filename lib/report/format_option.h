// The --format option of a stage whose records lib/report renders
// (rp-cpath, rp-repr, rp-diagnose): ndjson writes the records, text or
// markdown the report of them, html a self-contained page with pictures.
//
//   report::FormatOption format(tool);
//   ...
//   if (!format.records()) config.passthrough = false;  // a report shows the stage's records only
//   return format.Run(*streams.output, [&](trace::Writer& w) { return stage::Run(config, input, w); });
#ifndef RP_LIB_REPORT_FORMAT_OPTION_H_
#define RP_LIB_REPORT_FORMAT_OPTION_H_

#include <functional>

#include "lib/base/status.h"
#include "lib/cli/tool.h"
#include "lib/report/report.h"
#include "lib/trace/writer.h"

namespace rp::report {

class FormatOption {
 public:
  // Adds --format to the tool's options.
  explicit FormatOption(cli::Tool& tool);

  bool records() const { return format_ == Choice::kNdjson; }
  // Runs `stage` into `out`: its records as they are, or rendered.
  Status Run(trace::Writer& out, const std::function<Status(trace::Writer&)>& stage) const;

 private:
  enum class Choice { kNdjson, kText, kMarkdown, kHtml };
  Choice format_ = Choice::kNdjson;
};

}  // namespace rp::report

#endif  // RP_LIB_REPORT_FORMAT_OPTION_H_
