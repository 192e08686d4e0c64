#include "lib/report/format_option.h"

namespace rp::report {

FormatOption::FormatOption(cli::Tool& tool) {
  tool.AddChoice<Choice>("--format", &format_,
                         {{"ndjson", Choice::kNdjson}, {"text", Choice::kText}, {"markdown", Choice::kMarkdown}},
                         "ndjson: records; text or markdown: a report for people (what rp-report shows of the "
                         "records)");
}

Status FormatOption::Run(trace::Writer& out, const std::function<Status(trace::Writer&)>& stage) const {
  if (records()) return stage(out);
  return RunAndRender(format_ == Choice::kText ? Format::kText : Format::kMarkdown, out, stage);
}

}  // namespace rp::report
