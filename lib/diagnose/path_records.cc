#include "lib/diagnose/path_records.h"

#include "lib/trace/reader.h"
#include "lib/trace/record_sink.h"

namespace rp::diagnose {

void PathRecords::Keep(const trace::Record& r) {
  switch (r.type) {
    case trace::RecordType::kCpSummary:
      if (!r.cp_summary.has_phase()) summary = r.cp_summary;
      break;
    case trace::RecordType::kCpProfile:
      if (r.cp_profile.has_phase()) break;
      if (r.cp_profile.scope == "site") sites.push_back(r.cp_profile);
      if (r.cp_profile.scope == "function") functions.push_back(r.cp_profile);
      break;
    case trace::RecordType::kCpZeroing: zeroings.push_back(r.cp_zeroing); break;
    default: break;
  }
}

Expected<std::string> PathRecords::Text() const {
  std::string text;
  trace::Writer writer(trace::StringOutput(&text));
  if (summary) RP_RETURN_IF_ERROR(writer.Write(*summary));
  for (const auto* records : {&sites, &functions}) {
    for (const trace::CpProfileRecord& r : *records) RP_RETURN_IF_ERROR(writer.Write(r));
  }
  for (const trace::CpZeroingRecord& r : zeroings) RP_RETURN_IF_ERROR(writer.Write(r));
  RP_RETURN_IF_ERROR(writer.Close());
  return text;
}

Status PathRecords::KeepText(std::string_view text) {
  trace::LineDecoder decoder;
  trace::Record record;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty()) continue;
    RP_RETURN_IF_ERROR(decoder.DecodeCopy(line, &record));
    Keep(record);
  }
  return OkStatus();
}

PathSource::PathSource(const window::Dictionary& dict, StepSink step) : step_(std::move(step)) {
  for (const std::string& p : dict.header.producer) {
    if (p.starts_with("rp-cpath")) return;
  }
  writer_ = std::make_unique<trace::Writer>(
      trace::RecordSink("<critical path>", [this](const trace::Record& r) {
        // Computed here, the steps come in the path's order.
        if (r.type == trace::RecordType::kCpSegment) step_(r.cp_segment, StreamPlace{.after = ++place_.after});
        records_.Keep(r);
      }));
  config_.passthrough = false;
  config_.phases = false;
  config_.warn = false;
  analysis_ = std::make_unique<cpath::Analysis>(config_, dict, *writer_);
}

PathSource::~PathSource() = default;

Status PathSource::AddWindow(std::unique_ptr<graph::WindowGraph>* w) {
  if (analysis_) return analysis_->AddWindow(w);
  const window::Window& window = (*w)->window;
  const window::Line* event = nullptr;  // the last line of a rank, its place not yet taken
  auto take_place = [&]() -> Status {
    RP_RETURN_IF_ERROR(decoder_.DecodeCopy(window.text(*event), &record_));
    trace::Reader::OrderKey key;
    trace::Reader::OrderKeyOf(record_, &key);
    place_ = StreamPlace{key.phase, key.time, key.rank, 0};
    event = nullptr;
    return OkStatus();
  };
  for (const window::Line& line : window.lines) {
    if (line.rank >= 0) {
      event = &line;
      continue;
    }
    if (line.type != trace::RecordType::kCpSummary && line.type != trace::RecordType::kCpProfile &&
        line.type != trace::RecordType::kCpZeroing && line.type != trace::RecordType::kCpSegment) {
      continue;
    }
    if (event != nullptr) RP_RETURN_IF_ERROR(take_place());
    ++place_.after;
    RP_RETURN_IF_ERROR(decoder_.DecodeCopy(window.text(line), &record_));
    if (record_.type == trace::RecordType::kCpSegment) step_(record_.cp_segment, place_);
    records_.Keep(record_);
  }
  return event != nullptr ? take_place() : OkStatus();
}

Status PathSource::Finish() {
  if (!analysis_ || !analysis_->any_calls()) return OkStatus();
  RP_RETURN_IF_ERROR(analysis_->Finish());
  return writer_->Close();
}

}  // namespace rp::diagnose
