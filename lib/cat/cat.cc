#include "lib/cat/cat.h"

#include <spdlog/spdlog.h>

#include <array>
#include <map>
#include <memory>

#include "lib/cat/summary.h"
#include "lib/trace/input_set.h"
#include "lib/trace/schema.h"
#include "lib/trace/validator.h"

namespace rp::cat {
namespace {

using trace::RecordType;

std::string CountReport(const std::array<int64_t, trace::kKnownRecordTypes>& known,
                        const std::map<std::string, int64_t>& unknown) {
  std::string out;
  int64_t total = 0;
  auto line = [&](std::string_view name, int64_t n) {
    std::string padded(name);
    padded.resize(std::max<size_t>(padded.size() + 1, 12), ' ');
    out += padded + std::to_string(n) + "\n";
  };
  for (const trace::RecordSpec& spec : trace::Schema()) {
    const int64_t n = known[static_cast<int>(spec.type)];
    total += n;
    if (n > 0) line(spec.name, n);
  }
  for (const auto& [name, n] : unknown) {
    total += n;
    line(name, n);
  }
  line("total", total);
  return out;
}

}  // namespace

std::vector<std::string> TypeNames() {
  std::vector<std::string> names;
  for (const trace::RecordSpec& spec : trace::Schema()) {
    // A split trace's part records are read as its parts' records.
    if (spec.type != trace::RecordType::kPart) names.emplace_back(spec.name);
  }
  return names;
}

Status Run(const Config& options, trace::InputSet& inputs, trace::Writer& out) {
  if (options.schema) {
    RP_RETURN_IF_ERROR(out.WriteText(trace::SchemaMarkdown()));
    return out.Close();
  }

  std::array<bool, trace::kKnownRecordTypes + 1> keep{};
  keep.fill(options.types.empty());
  keep[static_cast<int>(RecordType::kHeader)] = true;
  for (const std::string& name : options.types) {
    keep[static_cast<int>(trace::RecordTypeFromName(name))] = true;
  }

  const bool stream_out = !options.validate && !options.count && !options.summary;
  trace::Validator validator;
  Summary summary;
  std::array<int64_t, trace::kKnownRecordTypes> known_counts{};
  std::map<std::string, int64_t> unknown_counts;
  trace::Record record;
  int64_t records = 0;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, inputs.Next(&record));
    if (!more) break;
    if ((++records & 0xFFFF) == 0 && options.progress) options.progress(records);
    if (!keep[static_cast<int>(record.type)]) continue;
    if (record.type == RecordType::kUnknown) {
      ++unknown_counts[record.type_name];
    } else {
      ++known_counts[static_cast<int>(record.type)];
    }
    if (options.validate) validator.Check(record, inputs.where());
    if (options.summary) summary.Add(record);
    if (stream_out) RP_RETURN_IF_ERROR(out.WriteRaw(record.line));
  }

  if (inputs.skipped() > 0) {
    spdlog::warn("skipped {} malformed line(s); first: {}", inputs.skipped(), inputs.first_skip());
  }
  if (inputs.differing_headers() > 0) {
    spdlog::warn("{} input(s) have headers of a different run; kept the first header",
                 inputs.differing_headers());
  }

  std::string report;
  if (options.validate) {
    validator.Finish();
    for (const std::string& problem : validator.problems()) report += problem + "\n";
    if (validator.problem_count() > static_cast<int64_t>(validator.problems().size())) {
      report += "... and " +
                std::to_string(validator.problem_count() - validator.problems().size()) +
                " more\n";
    }
  }
  if (options.count) report += CountReport(known_counts, unknown_counts);
  if (options.summary) report += summary.Text();
  if (!stream_out) {
    if (options.validate && validator.problem_count() == 0) report += "ok\n";
    RP_RETURN_IF_ERROR(out.WriteText(report));
  }
  RP_RETURN_IF_ERROR(out.Close());
  if (validator.problem_count() > 0) {
    return InputError(std::to_string(validator.problem_count()) + " problem(s) found");
  }
  return OkStatus();
}

Status Split(int parts, const std::string& index_path, const trace::PartOpener& open_part, trace::InputSet& inputs,
             trace::Writer& index, const std::function<void(int64_t records)>& progress) {
  trace::Record record;
  std::string header_line;
  int64_t ranks = -1, records = 0;
  std::unique_ptr<trace::SplitWriter> split;
  auto start = [&]() -> Status {  // at the first event, or the end
    if (ranks <= 0) return InputError(inputs.where() + ": --split needs the header's number of ranks");
    RP_ASSIGN_OR_RETURN(split, trace::SplitWriter::Open(index_path,
                                                        trace::BalancedGroups(std::vector<int64_t>(ranks, 1), parts),
                                                        open_part, header_line));
    return OkStatus();
  };
  trace::Reader::OrderKey last{INT64_MIN, INT64_MIN, INT64_MIN};
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, inputs.Next(&record));
    if (!more) break;
    if ((++records & 0xFFFF) == 0 && progress) progress(records);
    trace::Reader::OrderKey key;
    if (!trace::Reader::OrderKeyOf(record, &key)) {
      if (split) {  // after the first event: it follows the event before it
        RP_RETURN_IF_ERROR(split->After()->WriteRaw(record.line));
        continue;
      }
      if (record.type == RecordType::kHeader) {
        header_line = record.line;
        ranks = record.header.has_ranks() ? record.header.ranks : -1;
      }
      RP_RETURN_IF_ERROR(index.WriteRaw(record.line));
      continue;
    }
    if (!split) RP_RETURN_IF_ERROR(start());
    if (key < last) {
      return InputError(inputs.where() + ": out of order (--split takes a stream in time order, or a phased one "
                                         "in phase order, as the stages write them; rp-record --split splits any "
                                         "recording)");
    }
    last = key;
    auto out = split->For(key.rank, key.time);
    if (!out.ok()) return InputError(inputs.where() + ": " + out.status().message());
    RP_RETURN_IF_ERROR((*out)->WriteRaw(record.line));
  }
  if (!split) RP_RETURN_IF_ERROR(start());
  RP_RETURN_IF_ERROR(split->Finish(index));
  return index.Close();
}

}  // namespace rp::cat
