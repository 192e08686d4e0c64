#include "lib/trace/input_set.h"

namespace rp::trace {

InputSet::InputSet(std::vector<Opener> inputs, const ReaderOptions& options)
    : inputs_(std::move(inputs)), options_(options) {}

InputSet::InputSet(const std::vector<std::string>& paths, const ReaderOptions& options) : options_(options) {
  for (const std::string& path : paths) inputs_.push_back([path] { return OpenInput(path); });
}

void InputSet::Rewind() {
  *this = InputSet(std::move(inputs_), options_);
}

Expected<bool> InputSet::Next(Record* record) {
  for (;;) {
    if (!reader_) {
      if (next_input_ == inputs_.size()) return false;
      RP_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, inputs_[next_input_++]());
      reader_ = std::make_unique<Reader>(std::move(source), options_);
    }
    RP_ASSIGN_OR_RETURN(bool more, reader_->Next(record));
    if (!more) {
      done_bytes_ += reader_->raw_bytes();
      if (reader_->skipped() > 0 && skipped_ == 0) first_skip_ = reader_->first_skip();
      skipped_ += reader_->skipped();
      reader_.reset();
      continue;
    }
    if (record->type != RecordType::kHeader) return true;
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

}  // namespace rp::trace
