// Encoding and decoding single rp-trace records (one NDJSON line each).
//
// Encoding writes fields in schema order, then any extras the record carried
// from a newer producer; decoding accepts keys in any order, keeps unknown
// keys as extras and checks types and required fields, so that
// Encode(Decode(line)) == line for every line this library wrote.
//
//   std::string line;
//   rp::trace::Encode(mpi_record, &line);        // appends text and '\n'
//
//   rp::trace::LineDecoder decoder;
//   rp::Status s = decoder.Decode(padded_text, &record);
#ifndef RP_LIB_TRACE_CODEC_H_
#define RP_LIB_TRACE_CODEC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "lib/trace/record.h"

namespace rp::trace {

// Appends one line: the JSON object for `record` and a newline.
template <typename R> void Encode(const R& record, std::string* out);

// Re-encodes the valid struct of `record` (its raw line for unknown types).
void EncodeRecord(const Record& record, std::string* out);

// Bytes of readable memory the decoder needs after the end of a line
// (simdjson's padding); the reader's buffers provide it.
inline constexpr size_t kDecodePadding = 64;

class LineDecoder {
 public:
  // kCanonicalFirst tries a direct scan of lines in the form Encode writes
  // and falls back to simdjson for anything else; the result is the same
  // either way. kValidating always uses simdjson (tests compare the two).
  enum class Path { kCanonicalFirst, kValidating };
  explicit LineDecoder(Path path = Path::kCanonicalFirst);
  ~LineDecoder();

  // Decodes one line into record->type and the matching struct.
  // `text` must be followed by kDecodePadding readable bytes. The error
  // message names the field and record but not the position, which the
  // caller knows ("field \"t1\" missing in mpi record (rank 3, seq 17)").
  Status Decode(std::string_view text, Record* record);
  // The same for text without the padding (copied first when the direct
  // scan gives up): for stages that buffer raw lines and change some records
  // before writing them. record->line may point into the decoder's copy.
  Status DecodeCopy(std::string_view text, Record* record);

  // Decodes the line that starts `rest` if it is in Encode's form and its
  // '\n' lies within `rest`: returns the line's length (without the '\n').
  // Returns 0, and leaves *record unspecified, otherwise: the caller finds
  // the line's end and calls Decode. Saves readers a separate pass to find
  // line ends. `rest` must be followed by kDecodePadding zero bytes.
  size_t DecodeLineAt(std::string_view rest, Record* record);

  // Lines decoded by the direct scan so far.
  int64_t scanned() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_CODEC_H_
