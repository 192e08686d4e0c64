#include "lib/report/report.h"

#include <cstring>

#include "lib/trace/codec.h"

namespace rp::report {
namespace {

class RecordSink : public trace::ByteSink {
 public:
  explicit RecordSink(Report* report) : report_(report) {}
  Status Write(std::string_view bytes) override {
    pending_.append(bytes);
    size_t begin = 0;
    for (size_t end; (end = pending_.find('\n', begin)) != std::string::npos; begin = end + 1) {
      ++line_;
      Status s = decoder_.DecodeCopy(std::string_view(pending_).substr(begin, end - begin), &record_);
      if (!s.ok()) return InputError("record " + std::to_string(line_) + " of the report's input: " + s.message());
      report_->Add(record_);
    }
    pending_.erase(0, begin);
    return OkStatus();
  }
  Status Close() override {
    if (!pending_.empty()) return InputError("the report's input ends inside a record");
    return OkStatus();
  }
  const std::string& name() const override { return name_; }

 private:
  Report* report_;
  std::string pending_;
  int64_t line_ = 0;
  trace::LineDecoder decoder_;
  trace::Record record_;
  std::string name_ = "<report>";
};

}  // namespace

void Report::Add(const trace::Record& record) {
  diagnose_.Add(record);
  cpath_.Add(record);
  repr_.Add(record);
}

std::string Report::Render(Format format) const {
  std::string out;
  if (!diagnose_.empty()) {
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

std::unique_ptr<trace::ByteSink> ReportSink(Report* report) { return std::make_unique<RecordSink>(report); }

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
