// Reads several rp-trace inputs as one stream, in the order given: the first
// input's header opens the stream and later inputs' headers are dropped
// (counted in differing_headers() when they describe another run). This is
// what every rp-* tool does with `rp-x a.zst b.zst`, and what the stages'
// libraries read: files, stdin or bytes in memory alike.
//
// An input that is the index of a split trace (split.h: the records
// before the first event, then `part` records naming files of rank
// groups) reads as the trace it was split from, byte for byte: its parts
// are opened beside it and merged as rp-record merges ranks, by time, then
// rank; a record of a part that is no event follows the part's record
// before it. A part that is
// missing, truncated, of another run, or holds ranks or times the index
// does not give it is an error naming the file.
//
//   trace::InputSet files({"a.ndjson.zst", "b.ndjson"}, {});
//   trace::InputSet memory({[&] { return trace::MemoryInput("t.ndjson", text); }}, {});
#ifndef RP_LIB_TRACE_INPUT_SET_H_
#define RP_LIB_TRACE_INPUT_SET_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
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

  // A split trace's parts read by process `process` of `processes` (a
  // parallel stage): a contiguous run of about parts/processes of them, by
  // rank. Other inputs are read whole.
  void SelectParts(int process, int processes) {
    select_process_ = process;
    select_processes_ = processes;
  }
  // After the first record: whether an input was a split trace, and the
  // ranks of the parts read (first > last: none).
  bool split() const { return split_; }
  // For a stage on many processes (`stage`, its binary's name): an error
  // naming the input unless it was a split trace.
  Status RequireSplit(std::string_view stage) const;
  int64_t first_rank() const { return selected_first_; }
  int64_t last_rank() const { return selected_last_; }
  // Whether `rank`'s records are read: false for the ranks of another
  // process's parts.
  bool Delivers(int64_t rank) const {
    return !split_ || select_processes_ == 0 || (rank >= selected_first_ && rank <= selected_last_);
  }

  // Next record of the concatenated inputs; false after the last one.
  Expected<bool> Next(Record* record);

  // The reader of the record last returned (for positions in messages).
  const Reader& current() const { return *current_; }
  // The block the line of the record last returned lies in (Reader::block).
  const InputBlock* block_address() const { return current_->block_address(); }
  std::shared_ptr<const InputBlock> block() const { return current_->block(); }
  std::string where() const { return current_ ? current_->where() : std::string("<none>"); }
  // Total raw bytes read so far over all inputs.
  uint64_t raw_bytes() const;
  int64_t skipped() const;
  const std::string& first_skip() const { return first_skip_; }
  int differing_headers() const { return differing_headers_; }

 private:
  // A split trace's part being merged.
  struct Part {
    std::unique_ptr<Reader> reader;
    std::string file;  // as the index names it
    int64_t first_rank = 0, last_rank = 0, records = 0, t0 = INT64_MIN, t1 = INT64_MAX;
    int64_t read = 0;  // records returned
    Reader::OrderKey key;
  };
  // Which part's record comes next: the least key (Reader::OrderKey; a
  // rank lives in one part, so no two parts tie).
  bool Later(size_t a, size_t b) const { return parts_[b].key < parts_[a].key; }

  // `first` is the index's first part record; the rest follow it.
  Status StartMerge(const PartRecord& first);
  // Peeks part i's next record into the heap, or checks its end.
  Status Queue(size_t i);
  Expected<bool> NextMerged(Record* record);
  Expected<bool> NextOfOnlyPart(Record* record);
  // What the part's record says of its lines: ranks and times in its range
  // (`line`: where the key was read), as many records as it counts, no
  // header or part record among them.
  static Status CheckPlace(const Part& part, const Reader::OrderKey& key, int64_t line);
  static Status CheckCount(const Part& part);
  static Status CheckRecord(const Part& part, const Record& record);
  void Retire(const Reader& reader);  // its bytes and skips go to the totals

  std::vector<Opener> inputs_;
  ReaderOptions options_;
  size_t next_input_ = 0;
  std::unique_ptr<Reader> reader_;
  const Reader* current_ = nullptr;
  std::string input_header_line_;  // the current input's header, as written
  int64_t input_ranks_ = -1;       // and its ranks
  std::vector<Part> parts_;        // while an index's parts are merged
  int select_process_ = 0, select_processes_ = 0;
  bool split_ = false;
  int64_t selected_first_ = 0, selected_last_ = -1;
  std::vector<size_t> heap_;       // of parts_, by Later
  size_t last_part_ = SIZE_MAX;    // whose record was returned last
  uint64_t done_bytes_ = 0;
  int64_t skipped_ = 0;
  std::string first_skip_;
  bool have_header_ = false;
  HeaderRecord first_header_;
  int differing_headers_ = 0;
};

}  // namespace rp::trace

#endif  // RP_LIB_TRACE_INPUT_SET_H_
