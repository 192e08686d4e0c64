// Streaming reader of rp-trace/1 records from a file or stdin, plain NDJSON
// or zstd. Memory stays bounded by the longest line (max_line), whatever the
// size of the input, plus the input blocks a caller chooses to hold (see
// InputBlock). Every error names the input, the line and the problem:
//   run.ndjson:1842: field "t1" missing in mpi record (rank 3, seq 17)
//
//   RP_ASSIGN_OR_RETURN(auto reader, rp::trace::Reader::Open("run.ndjson.zst"));
//   rp::trace::Record rec;
//   for (;;) {
//     RP_ASSIGN_OR_RETURN(bool more, reader->Next(&rec));
//     if (!more) break;
//     ...
//   }
#ifndef RP_LIB_TRACE_READER_H_
#define RP_LIB_TRACE_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/codec.h"
#include "lib/trace/io.h"
#include "lib/trace/record.h"

namespace rp::trace {

// A stretch of the input that record lines point into. The reader fills
// one block at a time and never overwrites one that anybody else holds: a
// holder of its shared_ptr (WindowReader's windows) keeps the lines of its
// records valid after the reader has moved on, without copying them.
struct InputBlock {
  std::vector<char> bytes;  // lines, then kDecodePadding bytes
  uint64_t serial = 0;      // blocks are numbered in the order they are filled, over all readers
};

struct ReaderOptions {
  // Longest accepted line; a longer one is an error (or skipped when
  // lenient). Records are small; a huge line means the input is not a trace.
  size_t max_line = size_t{1} << 20;
  // Skip malformed lines, counting them, instead of failing. The header
  // must still be valid.
  bool lenient = false;
};

class Reader {
 public:
  static Expected<std::unique_ptr<Reader>> Open(const std::string& path,
                                                const ReaderOptions& options = {});
  Reader(std::unique_ptr<ByteSource> source, const ReaderOptions& options);

  // Reads the next record. Returns false at the end of the input. The first
  // record is always the header (checked: present, schema rp-trace/1).
  Expected<bool> Next(Record* record);

  // Where the next record goes in the order of a merged trace: its phase
  // (rp-phases' tag; -1 without), time (mpi t0, sample t) and rank. The
  // line is looked at, not read: Next() then reads it. Returns false at the
  // end of the input; sets *known to false for a line that is no mpi or
  // sample record (Next() says what it is). Canonical lines are scanned
  // where they lie, others decoded.
  struct OrderKey {
    int64_t phase = -1, time = 0, rank = 0;
    // A trace's order: by time, then rank (the recorder's merge), and a
    // phased stream's phases one after another (rp-phases writes a
    // window's phases in turn).
    bool operator<(const OrderKey& o) const {
      if (phase != o.phase) return phase < o.phase;
      return time != o.time ? time < o.time : rank < o.rank;
    }
  };
  Expected<bool> PeekOrder(OrderKey* key, bool* known);
  // The key of a decoded record; false for one that is no mpi or sample.
  static bool OrderKeyOf(const Record& record, OrderKey* key);

  const std::string& name() const { return source_->name(); }
  // Line number of the record last returned (from 1).
  int64_t line() const { return line_; }
  // "name:line" of the record last returned, for messages.
  std::string where() const { return name() + ":" + std::to_string(line_); }
  uint64_t raw_bytes() const { return source_->raw_bytes(); }
  bool compressed() const { return source_->compressed(); }
  // The block the line of the record last returned lies in.
  const InputBlock* block_address() const { return block_.get(); }
  std::shared_ptr<const InputBlock> block() const { return block_; }
  // Lines skipped in lenient mode, and the first reason.
  int64_t skipped() const { return skipped_; }
  const std::string& first_skip() const { return first_skip_; }

 private:
  // The next line that is not blank, left unread; false at end of input.
  // A line too long to be a record is returned empty (Next() reports it).
  Expected<bool> PeekLine(std::string_view* line);
  // Sets *line to the next line (without '\n'); false at end of input.
  Expected<bool> NextLine(std::string_view* line);
  Expected<bool> Fill();
  Status Problem(const std::string& message);  // error, or counted skip
  Status CheckHeader(const HeaderRecord& header);
  // Moves on to another block, one no one else holds any more.
  void NextBlock();
  static bool Held(const std::shared_ptr<InputBlock>& block);  // by anyone but the reader
  size_t MostCapacity() const;  // of a block: a line of max_line bytes, its newline and more

  std::unique_ptr<Record> peeked_;  // PeekOrder's decoding of a line not in canonical form
  std::unique_ptr<ByteSource> source_;
  ReaderOptions options_;
  LineDecoder decoder_;
  std::shared_ptr<InputBlock> block_;                 // being filled
  std::vector<std::shared_ptr<InputBlock>> spares_;   // filled before, held or free
  char* buffer_ = nullptr;  // block_'s bytes
  size_t capacity_ = 0;     // and how many may hold lines
  size_t begin_ = 0;        // first unconsumed byte
  size_t end_ = 0;          // end of valid data
  bool eof_ = false;
  int64_t line_ = 0;
  bool seen_header_ = false;
  int64_t skipped_ = 0;
  std::string first_skip_;
};

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_READER_H_
