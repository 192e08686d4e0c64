#include "lib/trace/input_set.h"

#include <algorithm>

namespace rp::trace {

InputSet::InputSet(std::vector<Opener> inputs, const ReaderOptions& options)
    : inputs_(std::move(inputs)), options_(options) {}

InputSet::InputSet(const std::vector<std::string>& paths, const ReaderOptions& options) : options_(options) {
  for (const std::string& path : paths) inputs_.push_back([path] { return OpenInput(path); });
}

Status InputSet::RequireSplit(std::string_view stage) const {
  if (split_) return OkStatus();
  return InputError(std::string(stage) + " reads a split trace (rp-record --split N, rp-cat --split N); " + where() +
                    ": the input is one stream");
}

void InputSet::Rewind() {
  const int process = select_process_, processes = select_processes_;
  *this = InputSet(std::move(inputs_), options_);
  SelectParts(process, processes);
}

uint64_t InputSet::raw_bytes() const {
  uint64_t bytes = done_bytes_ + (reader_ ? reader_->raw_bytes() : 0);
  for (const Part& part : parts_) bytes += part.reader->raw_bytes();
  return bytes;
}

int64_t InputSet::skipped() const {
  int64_t skipped = skipped_ + (reader_ ? reader_->skipped() : 0);
  for (const Part& part : parts_) skipped += part.reader->skipped();
  return skipped;
}

void InputSet::Retire(const Reader& reader) {
  done_bytes_ += reader.raw_bytes();
  if (reader.skipped() > 0 && skipped_ == 0) first_skip_ = reader.first_skip();
  skipped_ += reader.skipped();
}

Expected<bool> InputSet::Next(Record* record) {
  for (;;) {
    if (!parts_.empty()) {
      RP_ASSIGN_OR_RETURN(bool more, NextMerged(record));
      if (more) return true;
      current_ = reader_.get();  // the index, at its end
    }
    if (!reader_) {
      if (next_input_ == inputs_.size()) return false;
      RP_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, inputs_[next_input_++]());
      reader_ = std::make_unique<Reader>(std::move(source), options_);
      current_ = reader_.get();
      input_header_line_.clear();
    }
    RP_ASSIGN_OR_RETURN(bool more, reader_->Next(record));
    if (!more) {
      Retire(*reader_);
      reader_.reset();
      current_ = nullptr;
      continue;
    }
    if (record->type == RecordType::kPart) {
      RP_RETURN_IF_ERROR(StartMerge(record->part));
      continue;
    }
    if (record->type != RecordType::kHeader) return true;
    if (input_header_line_.empty()) {
      input_header_line_ = record->line;
      input_ranks_ = record->header.has_ranks() ? record->header.ranks : -1;
    }
    if (!have_header_) {
      have_header_ = true;
      first_header_ = record->header;
      return true;
    }
    const HeaderRecord& h = record->header;
    if (h.app != first_header_.app || h.ranks != first_header_.ranks ||
        h.argv != first_header_.argv || h.clock != first_header_.clock) {
      ++differing_headers_;
    }
  }
}

Status InputSet::StartMerge(const PartRecord& first) {
  const std::string index = reader_->name();
  std::vector<PartRecord> list{first};
  auto rec = std::make_unique<Record>();
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, reader_->Next(rec.get()));
    if (!more) break;
    if (rec->type != RecordType::kPart) {
      return InputError(reader_->where() + ": a \"" + rec->type_name +
                        "\" record after the part records (an index ends with its parts; what follows the first "
                        "event lies in the parts)");
    }
    list.push_back(rec->part);
  }
  // The parts' ranks: every rank of the header in exactly one part.
  std::sort(list.begin(), list.end(),
            [](const PartRecord& a, const PartRecord& b) { return a.first_rank < b.first_rank; });
  int64_t next = 0;
  for (const PartRecord& p : list) {
    if (p.last_rank < p.first_rank || p.first_rank < 0) {
      return InputError(index + ": part " + p.file + " has ranks " + std::to_string(p.first_rank) + ".." +
                        std::to_string(p.last_rank));
    }
    if (p.first_rank > next) {
      return InputError(index + ": ranks " + std::to_string(next) + ".." + std::to_string(p.first_rank - 1) +
                        " are in no part (the index lists a part for every rank)");
    }
    if (p.first_rank < next) {
      return InputError(index + ": rank " + std::to_string(p.first_rank) + " is in two parts (" + p.file + ")");
    }
    next = p.last_rank + 1;
  }
  if (input_ranks_ >= 0 && next != input_ranks_) {
    return InputError(index + ": its parts hold ranks 0.." + std::to_string(next - 1) + ", its header says " +
                      std::to_string(input_ranks_) + " ranks");
  }
  split_ = true;
  if (select_processes_ > 0) {  // this process's share of the parts
    const size_t n = list.size(), p = select_process_, ps = select_processes_;
    list = std::vector<PartRecord>(list.begin() + p * n / ps, list.begin() + (p + 1) * n / ps);
    selected_first_ = list.empty() ? 0 : list.front().first_rank;
    selected_last_ = list.empty() ? -1 : list.back().last_rank;
  } else {
    selected_first_ = 0;
    selected_last_ = next - 1;
  }
  // Parts lie beside the index (stdin's: in the working directory).
  const size_t slash = index.rfind('/');
  const std::string dir = slash == std::string::npos || index.front() == '<' ? "" : index.substr(0, slash + 1);
  for (const PartRecord& p : list) {
    Part part;
    part.file = p.file;
    part.first_rank = p.first_rank;
    part.last_rank = p.last_rank;
    part.records = p.records;
    if (p.has_t0()) part.t0 = p.t0;
    if (p.has_t1()) part.t1 = p.t1;
    const std::string path = !p.file.empty() && p.file.front() == '/' ? p.file : dir + p.file;
    auto reader = Reader::Open(path, options_);
    if (!reader.ok()) return InputError(index + " names a part that cannot be read: " + reader.status().message());
    part.reader = std::move(*reader);
    RP_ASSIGN_OR_RETURN(bool more, part.reader->Next(rec.get()));
    if (!more || rec->line != input_header_line_) {
      return InputError(path + ": its header differs from its index's (" + index +
                        "): a part of another run, or of another split of it");
    }
    parts_.push_back(std::move(part));
  }
  heap_.clear();
  last_part_ = SIZE_MAX;
  if (parts_.size() == 1) return OkStatus();  // read as it lies: NextOfOnlyPart
  for (size_t i = 0; i < parts_.size(); ++i) RP_RETURN_IF_ERROR(Queue(i));
  return OkStatus();
}

Status InputSet::Queue(size_t i) {
  Part& part = parts_[i];
  Reader::OrderKey key;
  bool known = true;
  RP_ASSIGN_OR_RETURN(bool more, part.reader->PeekOrder(&key, &known));
  if (!more) return CheckCount(part);
  if (!known) {
    // No event: it follows the part's record before it (a stage's record
    // between events, as the split writer placed it), or NextMerged says
    // what is wrong with it.
    key = {INT64_MIN, INT64_MIN, INT64_MIN};
  } else {
    RP_RETURN_IF_ERROR(CheckPlace(part, key, part.reader->line() + 1));
  }
  part.key = key;
  heap_.push_back(i);
  std::push_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return Later(a, b); });
  return OkStatus();
}

Status InputSet::CheckPlace(const Part& part, const Reader::OrderKey& key, int64_t line) {
  auto where = [&] { return part.reader->name() + ":" + std::to_string(line); };  // on errors only: a hot path
  if (key.rank < part.first_rank || key.rank > part.last_rank) {
    return InputError(where() + ": rank " + std::to_string(key.rank) + " is not one of the part's ranks " +
                      std::to_string(part.first_rank) + ".." + std::to_string(part.last_rank) +
                      " (its index's part record)");
  }
  if (key.time < part.t0 || key.time > part.t1) {
    return InputError(where() + ": time " + std::to_string(key.time) + " lies outside the part's " +
                      std::to_string(part.t0) + ".." + std::to_string(part.t1) + " (its index's part record)");
  }
  return OkStatus();
}

Status InputSet::CheckCount(const Part& part) {
  if (part.read + part.reader->skipped() == part.records) return OkStatus();  // (lenient: skipped lines were records)
  return InputError(part.reader->name() + ": " + std::to_string(part.read) + " records, its index says " +
                    std::to_string(part.records) + " (a truncated or replaced part?)");
}

Status InputSet::CheckRecord(const Part& part, const Record& record) {
  if (record.type == RecordType::kHeader || record.type == RecordType::kPart) {
    return InputError(part.reader->where() + ": a \"" + record.type_name +
                      "\" record where the part has a record (is the part being written?)");
  }
  Reader::OrderKey key;
  if (!Reader::OrderKeyOf(record, &key)) return OkStatus();  // it follows the record before it
  return CheckPlace(part, key, part.reader->line());
}

Expected<bool> InputSet::NextMerged(Record* record) {
  if (parts_.size() == 1) return NextOfOnlyPart(record);
  if (last_part_ != SIZE_MAX) {
    const size_t last = last_part_;
    last_part_ = SIZE_MAX;
    RP_RETURN_IF_ERROR(Queue(last));
  }
  if (heap_.empty()) {
    for (const Part& part : parts_) Retire(*part.reader);
    parts_.clear();
    return false;
  }
  std::pop_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return Later(a, b); });
  const size_t i = heap_.back();
  heap_.pop_back();
  Part& part = parts_[i];
  current_ = part.reader.get();
  RP_ASSIGN_OR_RETURN(bool more, part.reader->Next(record));
  if (!more) return InputError(part.reader->where() + ": the end where the part has a record (is it being written?)");
  // An event whose key was peeked is checked; another line is checked now.
  if (part.key.rank == INT64_MIN) RP_RETURN_IF_ERROR(CheckRecord(part, *record));
  ++part.read;
  last_part_ = i;
  return true;
}

// One part (a process's share of a split trace, in a parallel stage): read
// as it lies, with the checks the merge makes.
Expected<bool> InputSet::NextOfOnlyPart(Record* record) {
  Part& part = parts_.front();
  current_ = part.reader.get();
  RP_ASSIGN_OR_RETURN(bool more, part.reader->Next(record));
  if (!more) {
    RP_RETURN_IF_ERROR(CheckCount(part));
    Retire(*part.reader);
    parts_.clear();
    return false;
  }
  ++part.read;
  RP_RETURN_IF_ERROR(CheckRecord(part, *record));
  return true;
}

}  // namespace rp::trace
