#include "lib/report/report.h"

#include <cstring>

#include "lib/report/svg.h"
#include "lib/trace/record_sink.h"

namespace rp::report {

void Report::Add(const trace::Record& record) {
  compare_.Add(record);
  diagnose_.Add(record);
  cpath_.Add(record);
  repr_.Add(record);
  hops_.Add(record);
}

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
    "table.efficiency td{text-align:right}section.finding{border-left:4px solid #e15759;padding-left:1em;"
    "margin:1.5em 0}pre{background:#f6f6f6;padding:1em;overflow-x:auto}svg{display:block;margin:0.5em 0}"
    "td svg{display:inline-block;vertical-align:middle;margin:0 4px 0 0}";

std::string HtmlPage(const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rp report</title><style>" +
         std::string(kStyle) + "</style></head>\n<body>\n<h1>rp report</h1>\n" + body + "</body></html>\n";
}

}  // namespace

std::string Report::Render(Format format) const {
  if (format == Format::kHtml) {
    std::string body, text;
    if (!compare_.empty()) {
      compare_.Text(&text);
      body += "<h2>Two runs compared</h2>\n<pre>" + Escape(text) + "</pre>\n";
    }
    if (!diagnose_.empty()) diagnose_.Html(&body);
    if (!cpath_.empty()) {
      text.clear();
      cpath_.Text(&text);
      body += "<h2>Critical path</h2>\n<pre>" + Escape(text) + "</pre>\n";
    }
    if (!repr_.empty()) {
      text.clear();
      repr_.Text(&text);
      body += "<h2>Representative paths</h2>\n<pre>" + Escape(text) + "</pre>\n";
    }
    if (!hops_.empty()) hops_.Html(&body);
    return HtmlPage(body);
  }
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
  if (!hops_.empty()) {
    if (!out.empty()) out += "\n";
    if (format == Format::kText) hops_.Text(&out);
    else hops_.Markdown(&out);
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
                        "rp-repr's path records, rp-hops' hop_summary)");
  }
  RP_RETURN_IF_ERROR(out.WriteText(report.Render(format)));
  return out.Close();
}

}  // namespace rp::report
