#include "lib/report/report.h"

#include <cstring>

#include "lib/trace/record_sink.h"

namespace rp::report {

void Report::Add(const trace::Record& record) {
  compare_.Add(record);
  diagnose_.Add(record);
  cpath_.Add(record);
  repr_.Add(record);
}

std::string Report::Render(Format format) const {
  std::string out;
  if (!compare_.empty()) {
    if (format == Format::kText) compare_.Text(&out);
    else compare_.Markdown(&out);
  }
  if (!diagnose_.empty()) {
    if (!out.empty()) out += "\n";
    if (format == Format::kText) diagnose_.Text(&out);
    else diagnose_.Markdown(&out);
  }
  if (!cpath_.empty()) {
    if (!out.empty()) out += "\n";
    if (format == Format::kText) cpath_.Text(&out);
    else cpath_.Markdown(&out);
  }
  if (!repr_.empty()) {
    if (!out.empty()) out += "\n";
    if (format == Format::kText) repr_.Text(&out);
    else repr_.Markdown(&out);
  }
  return out;
}

std::unique_ptr<trace::ByteSink> ReportSink(Report* report) {
  return trace::RecordSink("the report's input", [report](const trace::Record& r) { report->Add(r); });
}

Status RunAndRender(Format format, trace::Writer& out, const std::function<Status(trace::Writer&)>& stage) {
  Report report;
  trace::Writer records(ReportSink(&report));
  RP_RETURN_IF_ERROR(stage(records));
  RP_RETURN_IF_ERROR(records.Close());
  RP_RETURN_IF_ERROR(out.WriteText(report.Render(format)));
  return out.Close();
}

Status RenderStream(trace::InputSet& input, Format format, trace::Writer& out) {
  Report report;
  trace::Record record;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, input.Next(&record));
    if (!more) break;
    report.Add(record);
  }
  if (report.empty()) {
    return NothingError("the stream has no records a report shows (rp-cpath's cp_summary and the others, "
                        "rp-repr's path records)");
  }
  RP_RETURN_IF_ERROR(out.WriteText(report.Render(format)));
  return out.Close();
}

}  // namespace rp::report
