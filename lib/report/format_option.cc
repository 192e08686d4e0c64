#include "lib/report/format_option.h"

namespace rp::report {

FormatOption::FormatOption(cli::Tool& tool) {
  tool.AddChoice<Choice>("--format", &format_,
                         {{"ndjson", Choice::kNdjson},
                          {"text", Choice::kText},
                          {"markdown", Choice::kMarkdown},
                          {"html", Choice::kHtml}},
                         "ndjson: records; text, markdown or html (one page with pictures, works offline): a "
                         "report for people (what rp-report shows of the records)");
}

Status FormatOption::Run(trace::Writer& out, const std::function<Status(trace::Writer&)>& stage) const {
  if (records()) return stage(out);
  const Format format = format_ == Choice::kText       ? Format::kText
                        : format_ == Choice::kMarkdown ? Format::kMarkdown
                                                       : Format::kHtml;
  return RunAndRender(format, out, stage);
}

}  // namespace rp::report
