// Streaming reader of one collector file (collector/raw_format.h). Reads in
// fixed-size chunks, so a rank's file of any size costs one buffer. A torn
// last record (the rank died mid-write) or a corrupt record ends the file
// with problem() saying where; everything before it is returned.
//
//   RP_ASSIGN_OR_RETURN(auto file, RawFile::Open(path));
//   const rp::raw::RecordHeader* rec;
//   while ((rec = file->Next()) != nullptr) { ... }
//   if (!file->problem().empty()) warn(file->problem());
#ifndef RP_LIB_RECORDER_RAW_FILE_H_
#define RP_LIB_RECORDER_RAW_FILE_H_

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "collector/raw_format.h"
#include "lib/base/status.h"

namespace rp::recorder {

class RawFile {
 public:
  // Fails if the file cannot be opened or its header is not a collector's.
  static Expected<std::unique_ptr<RawFile>> Open(const std::string& path);
  ~RawFile();

  const raw::FileHeader& header() const { return header_; }
  const std::string& path() const { return path_; }

  // The next record (valid until the next call), or null at the end.
  const raw::RecordHeader* Next();
  // Why reading stopped early ("" when the file ended cleanly).
  const std::string& problem() const { return problem_; }
  // Byte offset of the record last returned.
  uint64_t offset() const { return record_offset_; }

 private:
  RawFile(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  bool Ensure(size_t bytes);  // at least `bytes` buffered from begin_

  std::string path_;
  std::FILE* file_;
  raw::FileHeader header_{};
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
  uint64_t consumed_ = 0;  // file offset of buffer_[begin_]
  uint64_t record_offset_ = 0;
  bool eof_ = false;
  std::string problem_;
};

// Views of the parts of a record.
struct EventView {
  const raw::EventFixed* fixed;
  int64_t fields[raw::kFieldCount];  // valid where fixed->present has the bit
  const int32_t* completed;
  const char* resolved;  // n_resolved ResolvedEntry, possibly unaligned
  const int32_t* started;
  bool has(raw::EventField f) const { return (fixed->present >> f) & 1; }
  int64_t duration() const {
    return fixed->duration == UINT32_MAX && has(raw::kDuration64) ? fields[raw::kDuration64]
                                                                  : fixed->duration;
  }
  raw::ResolvedEntry resolved_at(size_t i) const {
    raw::ResolvedEntry entry;
    std::memcpy(&entry, resolved + i * sizeof entry, sizeof entry);
    return entry;
  }
};
// Unpacks an event; false if its size does not match its contents.
bool ParseEvent(const raw::RecordHeader* record, EventView* view);

struct CommView {
  const raw::CommFixed* fixed;
  const int32_t* members;
  const int32_t* remote;
};
bool ParseComm(const raw::RecordHeader* record, CommView* view);

struct SampleView {
  const raw::SampleFixed* fixed;
  const uint64_t* frames;
};
bool ParseSample(const raw::RecordHeader* record, SampleView* view);

// The text of a kMaps or kCmdline record.
std::string_view RecordText(const raw::RecordHeader* record);

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_RAW_FILE_H_
