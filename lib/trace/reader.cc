#include "lib/trace/reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace rp::trace {
namespace {

// Reads, and blocks, are small enough that the bytes parsed next are still
// in L2 and that windows which hold blocks hold little more than their own
// lines. A block grows for a longer line, up to MostCapacity().
constexpr size_t kReadChunk = size_t{1} << 16;
constexpr size_t kBlockBytes = size_t{1} << 17;
constexpr size_t kSpareBlocks = 4;  // free blocks kept beyond the current one
std::atomic<uint64_t> next_serial{0};

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// Reads a decimal integer of at most 18 digits at *at (optional '-'),
// moving past it; a digit must not end the text (the number might go on).
// Longer ones are left to the decoder.
inline bool ScanInt(std::string_view text, size_t* at, int64_t* value) {
  size_t i = *at;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  const size_t first = i;
  uint64_t v = 0;
  while (i < text.size() && static_cast<unsigned char>(text[i] - '0') < 10 && i - first < 18) {
    v = v * 10 + (text[i++] - '0');
  }
  if (i == first || i == text.size() || static_cast<unsigned char>(text[i] - '0') < 10) return false;
  *value = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  *at = i;
  return true;
}

template <size_t N>
inline bool ScanLiteral(std::string_view text, size_t* at, const char (&literal)[N]) {
  if (text.size() - *at < N - 1 || std::memcmp(text.data() + *at, literal, N - 1) != 0) return false;  // inlined
  *at += N - 1;
  return true;
}

// The phase of a canonical line from `at` on, where "phase" is the last
// member: -1 without one; false when the line's end is not in `text`.
// (A field added after "phase" would hide it from this scan: the schema
// must keep it last.)
static_assert(MpiRecord::k_phase + 1 == MpiRecord::kFieldCount &&
                  SampleRecord::k_phase + 1 == SampleRecord::kFieldCount,
              "ScanPhase reads \"phase\" as the last member of mpi and sample lines");
inline bool ScanPhase(std::string_view text, size_t at, int64_t* phase) {
  const void* nl = std::memchr(text.data() + at, '\n', text.size() - at);
  if (nl == nullptr) return false;
  size_t end = static_cast<const char*>(nl) - text.data();
  if (end > at && text[end - 1] == '\r') --end;
  if (end <= at || text[end - 1] != '}') return false;
  size_t digits = end - 1;
  while (digits > at && static_cast<unsigned char>(text[digits - 1] - '0') < 10) --digits;
  if (digits < end - 1 && digits > at && text[digits - 1] == '-') --digits;
  constexpr std::string_view kPhase = R"(,"phase":)";
  *phase = -1;
  if (digits == end - 1 || digits - at < kPhase.size() ||
      text.substr(digits - kPhase.size(), kPhase.size()) != kPhase) {
    return true;
  }
  size_t i = digits;
  return ScanInt(text, &i, phase);
}

// The order key at the start of `text` when its line is in Encode's form,
// where the first fields are
//   {"type":"mpi","rank":R,"seq":S,"fn":"NAME","t0":T   or   {"type":"sample","rank":R,"t":T
// and "phase", when present, is the last. `text` may run past the line: a
// malformed line's key is wrong, and reading it says so.
inline bool ScanOrderKey(std::string_view text, Reader::OrderKey* key) {
  size_t at = 0;
  int64_t seq = 0;
  if (ScanLiteral(text, &at, R"({"type":"mpi","rank":)")) {
    if (!ScanInt(text, &at, &key->rank) || !ScanLiteral(text, &at, R"(,"seq":)") || !ScanInt(text, &at, &seq) ||
        !ScanLiteral(text, &at, R"(,"fn":")")) {
      return false;
    }
    const void* quote = std::memchr(text.data() + at, '"', std::min<size_t>(text.size() - at, 64));
    if (quote == nullptr) return false;
    const size_t end = static_cast<const char*>(quote) - text.data();
    if (std::memchr(text.data() + at, '\\', end - at) != nullptr) return false;
    at = end + 1;
    return ScanLiteral(text, &at, R"(,"t0":)") && ScanInt(text, &at, &key->time) && ScanPhase(text, at, &key->phase);
  }
  return ScanLiteral(text, &at, R"({"type":"sample","rank":)") && ScanInt(text, &at, &key->rank) &&
         ScanLiteral(text, &at, R"(,"t":)") && ScanInt(text, &at, &key->time) && ScanPhase(text, at, &key->phase);
}

}  // namespace

Expected<std::unique_ptr<Reader>> Reader::Open(const std::string& path,
                                               const ReaderOptions& options) {
  RP_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenInput(path));
  return std::make_unique<Reader>(std::move(source), options);
}

Reader::Reader(std::unique_ptr<ByteSource> source, const ReaderOptions& options)
    : source_(std::move(source)), options_(options) {
  NextBlock();
}

bool Reader::Held(const std::shared_ptr<InputBlock>& block) {
  if (block.use_count() > 1) return true;
  // Whoever held it last (another thread, in rp-cpath -j) is done reading it.
  std::atomic_thread_fence(std::memory_order_acquire);
  return false;
}

size_t Reader::MostCapacity() const { return options_.max_line + kReadChunk; }

void Reader::NextBlock() {
  // Room for the unconsumed part of a line and a read, at least a block.
  const size_t need = std::min(std::max(kBlockBytes, end_ - begin_ + kReadChunk), MostCapacity());
  // A spare no one holds any more; of the other free ones a few are kept.
  std::shared_ptr<InputBlock> next;
  size_t free = 0;
  for (auto it = spares_.begin(); it != spares_.end();) {
    if (Held(*it)) {
      ++it;
    } else if (!next && (*it)->bytes.size() >= need + kDecodePadding) {
      next = std::move(*it);
      it = spares_.erase(it);
    } else if (++free > kSpareBlocks) {
      it = spares_.erase(it);
    } else {
      ++it;
    }
  }
  if (!next) {
    next = std::make_shared<InputBlock>();
    next->bytes.resize(need + kDecodePadding);
  }
  next->serial = next_serial++;
  if (block_) {  // the unconsumed part of a line moves along
    std::memcpy(next->bytes.data(), buffer_ + begin_, end_ - begin_);
    spares_.push_back(std::move(block_));
  }
  end_ -= begin_;
  begin_ = 0;
  block_ = std::move(next);
  buffer_ = block_->bytes.data();
  capacity_ = block_->bytes.size() - kDecodePadding;
}

Expected<bool> Reader::Fill() {
  if (Held(block_)) {
    // Lines before begin_ are someone's: the reader goes on in the block's
    // free room, then in another block.
    if (end_ == capacity_ && (begin_ > 0 || capacity_ < MostCapacity())) NextBlock();
  } else {
    // The unconsumed bytes move to the front; a long line may need a
    // bigger block.
    if (begin_ > 0) {
      std::memmove(buffer_, buffer_ + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ == capacity_ && capacity_ < MostCapacity()) NextBlock();
  }
  if (end_ == capacity_) return true;  // a line of max_line bytes or more: the caller reports it
  RP_ASSIGN_OR_RETURN(size_t got, source_->Read(buffer_ + end_, std::min(capacity_ - end_, kReadChunk)));
  if (got == 0) eof_ = true;
  end_ += got;
  std::memset(buffer_ + end_, 0, kDecodePadding);  // DecodeLineAt's padding
  return got > 0;
}

Expected<bool> Reader::NextLine(std::string_view* line) {
  size_t scanned = begin_;  // no newline in [begin_, scanned)
  for (;;) {
    const char* start = buffer_ + begin_;
    const void* nl = std::memchr(buffer_ + scanned, '\n', end_ - scanned);
    if (nl != nullptr) {
      const size_t len = static_cast<const char*>(nl) - start;
      begin_ += len + 1;
      ++line_;
      if (len > options_.max_line) {
        RP_RETURN_IF_ERROR(Problem("line is " + std::to_string(len) + " bytes, longer than the " +
                                   std::to_string(options_.max_line) +
                                   "-byte limit (is this an rp-trace stream?)"));
        continue;
      }
      *line = std::string_view(start, len);
      return true;
    }
    if (end_ - begin_ > options_.max_line) {
      // Too long to be a record: report it without buffering the rest.
      ++line_;
      const std::string message = "line is longer than the " + std::to_string(options_.max_line) +
                                  "-byte limit (is this an rp-trace stream?)";
      RP_RETURN_IF_ERROR(Problem(message));
      // Lenient: discard through the next newline.
      for (;;) {
        const void* skip_nl = std::memchr(buffer_ + begin_, '\n', end_ - begin_);
        if (skip_nl != nullptr) {
          begin_ = static_cast<const char*>(skip_nl) - buffer_ + 1;
          break;
        }
        begin_ = end_;
        RP_ASSIGN_OR_RETURN(bool more, Fill());
        if (!more) return false;
      }
      scanned = begin_;
      continue;
    }
    if (eof_) {
      if (begin_ == end_) return false;
      // Last line without a newline.
      *line = std::string_view(start, end_ - begin_);
      begin_ = end_;
      ++line_;
      return true;
    }
    const size_t offset = end_ - begin_;
    RP_ASSIGN_OR_RETURN(bool more, Fill());
    scanned = begin_ + offset;
    (void)more;
  }
}

Expected<bool> Reader::PeekLine(std::string_view* line) {
  for (;;) {
    const void* nl = std::memchr(buffer_ + begin_, '\n', end_ - begin_);
    size_t length = 0;
    if (nl != nullptr) {
      length = static_cast<const char*>(nl) - (buffer_ + begin_);
    } else if (end_ - begin_ > options_.max_line) {
      *line = {};  // too long: Next() reports it
      return true;
    } else if (!eof_) {
      RP_ASSIGN_OR_RETURN(bool more, Fill());
      (void)more;
      continue;
    } else if (begin_ == end_) {
      return false;
    } else {
      length = end_ - begin_;  // the last line, without a newline
    }
    *line = std::string_view(buffer_ + begin_, length);
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    if ((line->empty() || line->front() != '{') && IsBlank(*line)) {  // skipped, as Next() would
      begin_ = std::min(end_, begin_ + length + 1);
      ++line_;
      continue;
    }
    return true;
  }
}

Expected<bool> Reader::PeekOrder(OrderKey* key, bool* known) {
  // Most lines: the key is read where the buffer holds it.
  if (begin_ != end_ && ScanOrderKey(std::string_view(buffer_ + begin_, end_ - begin_), key)) {
    *known = true;
    return true;
  }
  std::string_view line;
  for (;;) {
    RP_ASSIGN_OR_RETURN(bool more, PeekLine(&line));
    if (!more) return false;
    // The whole line is in the buffer now.
    *known = ScanOrderKey(std::string_view(buffer_ + begin_, end_ - begin_), key);
    if (*known || line.empty()) return true;  // (too long a line: Next() reports or skips it)
    if (!peeked_) peeked_ = std::make_unique<Record>();
    const Status decoded = decoder_.Decode(line, peeked_.get());
    if (decoded.ok() || !options_.lenient || !seen_header_) break;
    // Lenient: a malformed line is skipped here, where it would be read,
    // so that the part's next record keeps its own place in the merge.
    ++line_;
    RP_RETURN_IF_ERROR(Problem(decoded.message()));
    const void* nl = std::memchr(line.data(), '\n', buffer_ + end_ - line.data());
    begin_ = nl == nullptr ? end_ : static_cast<size_t>(static_cast<const char*>(nl) - buffer_) + 1;
  }
  *known = OrderKeyOf(*peeked_, key);  // (no event: Next() says what it is)
  return true;
}

bool Reader::OrderKeyOf(const Record& record, OrderKey* key) {
  if (record.type == RecordType::kMpi) {
    const MpiRecord& m = record.mpi;
    *key = {m.has_phase() ? m.phase : -1, m.t0, m.rank};
    return true;
  }
  if (record.type == RecordType::kSample) {
    const SampleRecord& s = record.sample;
    *key = {s.has_phase() ? s.phase : -1, s.t, s.rank};
    return true;
  }
  return false;
}

Status Reader::Problem(const std::string& message) {
  if (!options_.lenient || !seen_header_) return InputError(where() + ": " + message);
  if (skipped_++ == 0) first_skip_ = where() + ": " + message;
  return OkStatus();
}

Status Reader::CheckHeader(const HeaderRecord& header) {
  const std::string& schema = header.schema;
  const std::string prefix = std::string(kSchemaName) + "/";
  if (schema.compare(0, prefix.size(), prefix) != 0) {
    return InputError(where() + ": schema \"" + schema + "\" is not an rp-trace schema");
  }
  const std::string version = schema.substr(prefix.size());
  const std::string major = version.substr(0, version.find('.'));
  if (major != std::to_string(kSchemaMajor)) {
    return InputError(where() + ": schema \"" + schema + "\" is not supported (this tool reads " +
                      std::string(kSchemaVersion) + "); convert it or use a matching rp version");
  }
  return OkStatus();
}

Expected<bool> Reader::Next(Record* record) {
  // Most lines are records in Encode's form with their newline already in
  // the buffer: decoded where they lie, without a pass to find their end.
  if (seen_header_ && begin_ != end_) {
    const size_t length =
        decoder_.DecodeLineAt(std::string_view(buffer_ + begin_, end_ - begin_), record);
    if (length != 0 && length <= options_.max_line) {
      begin_ += length + 1;
      ++line_;
      if (record->type == RecordType::kHeader) RP_RETURN_IF_ERROR(CheckHeader(record->header));
      return true;
    }
  }
  for (;;) {
    std::string_view line;
    RP_ASSIGN_OR_RETURN(bool more, NextLine(&line));
    if (!more) {
      if (!seen_header_) {
        return InputError(name() + ": empty input (an rp-trace stream starts with a header record)");
      }
      return false;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if ((line.empty() || line.front() != '{') && IsBlank(line)) continue;
    record->type = RecordType::kUnknown;
    record->type_name.clear();
    Status status = decoder_.Decode(line, record);
    if (!status.ok() && !seen_header_ && !record->type_name.empty() &&
        record->type != RecordType::kHeader) {
      status = InputError("first record is \"" + record->type_name +
                          "\", expected a header (is this an rp-trace stream?)");
    }
    if (!status.ok()) {
      if (eof_ && begin_ == end_ && line.data() + line.size() == buffer_ + end_ &&
          line.front() == '{') {
        status = InputError(status.message() + "; the stream ends mid-record (truncated?)");
      }
      RP_RETURN_IF_ERROR(Problem(status.message()));
      continue;
    }
    if (!seen_header_) {
      if (record->type != RecordType::kHeader) {
        return InputError(where() + ": first record is \"" + record->type_name +
                          "\", expected a header (is this an rp-trace stream?)");
      }
      RP_RETURN_IF_ERROR(CheckHeader(record->header));
      seen_header_ = true;
    } else if (record->type == RecordType::kHeader) {
      RP_RETURN_IF_ERROR(CheckHeader(record->header));
    }
    return true;
  }
}

}  // namespace rp::trace
