// Reads several rp-trace inputs as one stream, in the order given: the first
// input's header opens the stream and later inputs' headers are dropped
// (counted in differing_headers() when they describe another run). This is
// what every rp-* tool does with `rp-x a.zst b.zst`, and what the stages'
// libraries read: files, stdin or bytes in memory alike.
//
//   trace::InputSet files({"a.ndjson.zst", "b.ndjson"}, {});
//   trace::InputSet memory({[&] { return trace::MemoryInput("t.ndjson", text); }}, {});
#ifndef RP_LIB_TRACE_INPUT_SET_H_
#define RP_LIB_TRACE_INPUT_SET_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/reader.h"

namespace rp::trace {

// Opens one input from its start; called again by InputSet::Rewind().
using Opener = std::function<Expected<std::unique_ptr<ByteSource>>()>;

class InputSet {
 public:
  InputSet(std::vector<Opener> inputs, const ReaderOptions& options);
  // Files by path ("-": stdin).
  InputSet(const std::vector<std::string>& paths, const ReaderOptions& options);

  // Starts again at the first input, for a second pass: every input is
  // opened again (stdin only if it is a regular file, or a spooled copy
  // put in its place: lib/cli's OpenStreams does that for stages that
  // rewind).
  void Rewind();

  // Next record of the concatenated inputs; false after the last one.
  Expected<bool> Next(Record* record);

  // The reader of the current input (for positions in messages).
  const Reader& current() const { return *reader_; }
  // The block the line of the record last returned lies in (Reader::block).
  const InputBlock* block_address() const { return reader_->block_address(); }
  std::shared_ptr<const InputBlock> block() const { return reader_->block(); }
  std::string where() const { return reader_ ? reader_->where() : std::string("<none>"); }
  // Total raw bytes read so far over all inputs.
  uint64_t raw_bytes() const { return done_bytes_ + (reader_ ? reader_->raw_bytes() : 0); }
  int64_t skipped() const { return skipped_ + (reader_ ? reader_->skipped() : 0); }
  const std::string& first_skip() const { return first_skip_; }
  int differing_headers() const { return differing_headers_; }

 private:
  std::vector<Opener> inputs_;
  ReaderOptions options_;
  size_t next_input_ = 0;
  std::unique_ptr<Reader> reader_;
  uint64_t done_bytes_ = 0;
  int64_t skipped_ = 0;
  std::string first_skip_;
  bool have_header_ = false;
  HeaderRecord first_header_;
  int differing_headers_ = 0;
};

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_INPUT_SET_H_
