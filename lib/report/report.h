// Reports for people, rendered from saved records: what a stage wrote can
// be shown again, as text or Markdown, without running the stage again
// (rp-report), and a stage's --format text shows exactly what it wrote.
// Sections: a comparison of two diagnoses (rp-diagnose --compare), the diagnosis (rp-diagnose's finding and efficiency records),
// the critical path (rp-cpath's cp_* records), representative paths
// (rp-repr's path and path_diff records), the network (rp-hops' hop_summary
// and hop_path records).
//
//   report::Report report;
//   for (each record of a stream) report.Add(record);
//   out.WriteText(report.Render(report::Format::kMarkdown));
//
//   // a stage's records rendered as they are made:
//   RP_RETURN_IF_ERROR(report::RunAndRender(format, out, [&](trace::Writer& records) {
//     return cpath::Run(config, input, records);
//   }));
#ifndef RP_LIB_REPORT_REPORT_H_
#define RP_LIB_REPORT_REPORT_H_

#include <functional>
#include <memory>
#include <string>

#include "lib/base/status.h"
#include "lib/report/compare_section.h"
#include "lib/report/cpath_section.h"
#include "lib/report/diagnose_section.h"
#include "lib/report/hops_section.h"
#include "lib/report/repr_section.h"
#include "lib/trace/input_set.h"
#include "lib/trace/record.h"
#include "lib/trace/writer.h"

namespace rp::report {

// kHtml: one self-contained page (inline CSS and SVG, no scripts, works
// offline); the diagnosis with pictures, the other sections as text.
enum class Format { kText, kMarkdown, kHtml };

class Report {
 public:
  // Keeps what a section shows of the record; the rest is passed over.
  void Add(const trace::Record& record);
  bool empty() const { return compare_.empty() && diagnose_.empty() && cpath_.empty() && repr_.empty() && hops_.empty();
  }
  std::string Render(Format format) const;

 private:
  CompareSection compare_;
  DiagnoseSection diagnose_;
  CriticalPathSection cpath_;
  ReprSection repr_;
  HopsSection hops_;
};

// A sink whose lines are decoded and added to *report (for a Writer a
// stage writes to). Malformed lines are an error naming the line.
std::unique_ptr<trace::ByteSink> ReportSink(Report* report);

// Runs `stage` with a writer into a Report, then renders the report to
// `out` and closes it. The stage's failure is returned, nothing rendered.
Status RunAndRender(Format format, trace::Writer& out, const std::function<Status(trace::Writer&)>& stage);

// Reads a saved stream and renders its report to `out` (rp-report). Exit
// status 1 (NothingError) when the stream has nothing a report shows.
Status RenderStream(trace::InputSet& input, Format format, trace::Writer& out);

}  // namespace rp::report

#endif  // RP_LIB_REPORT_REPORT_H_
