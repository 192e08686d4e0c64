#include "lib/recorder/raw_file.h"

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace rp::recorder {
namespace {

constexpr size_t kChunk = size_t{1} << 20;
constexpr uint32_t kMaxRecord = uint32_t{1} << 28;

}  // namespace

Expected<std::unique_ptr<RawFile>> RawFile::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return InputError(path + ": cannot open: " + std::strerror(errno));
  std::unique_ptr<RawFile> file(new RawFile(path, f));
  // What the file is, told from as much of a header as it has: another
  // file, another version of the format, or a header cut short.
  const size_t got = std::fread(&file->header_, 1, sizeof file->header_, f);
  const size_t version_end = offsetof(raw::FileHeader, version) + sizeof file->header_.version;
  if (got >= sizeof raw::kMagic && std::memcmp(file->header_.magic, raw::kMagic, sizeof raw::kMagic) != 0) {
    return InputError(path + ": not a collector file (bad magic)");
  }
  if (got >= version_end && file->header_.version != raw::kVersion) {
    return InputError(path + ": collector format version " + std::to_string(file->header_.version) +
                      ", this rp-record reads " + std::to_string(raw::kVersion) +
                      " (merge with the rp-record of the collector that wrote it)");
  }
  if (got < sizeof file->header_) {
    return InputError(path + ": too short for a collector file header (" +
                      std::to_string(sizeof file->header_) + " bytes)");
  }
  file->consumed_ = sizeof file->header_;
  file->buffer_.resize(kChunk);
  return file;
}

RawFile::~RawFile() { std::fclose(file_); }

bool RawFile::Ensure(size_t bytes) {
  while (end_ - begin_ < bytes) {
    if (eof_) return false;
    if (begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (buffer_.size() < bytes) buffer_.resize(bytes);
    const size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
    if (got == 0) eof_ = true;
    end_ += got;
  }
  return true;
}

const raw::RecordHeader* RawFile::Next() {
  if (!problem_.empty()) return nullptr;
  if (!Ensure(sizeof(raw::RecordHeader))) {
    if (end_ > begin_) {
      problem_ = "file ends inside a record header at byte " + std::to_string(consumed_);
    }
    return nullptr;
  }
  raw::RecordHeader head;
  std::memcpy(&head, buffer_.data() + begin_, sizeof head);
  if (head.size < sizeof head || head.size % 8 != 0 || head.size > kMaxRecord ||
      head.kind < raw::kEvent || head.kind > raw::kOnline) {
    problem_ = "corrupt record at byte " + std::to_string(consumed_) + " (kind " +
               std::to_string(head.kind) + ", size " + std::to_string(head.size) + ")";
    return nullptr;
  }
  if (!Ensure(head.size)) {
    problem_ = "file ends inside a record at byte " + std::to_string(consumed_) +
               " (torn write: the rank stopped while writing)";
    return nullptr;
  }
  const auto* record = reinterpret_cast<const raw::RecordHeader*>(buffer_.data() + begin_);
  record_offset_ = consumed_;
  begin_ += head.size;
  consumed_ += head.size;
  return record;
}

bool ParseEvent(const raw::RecordHeader* record, EventView* view) {
  if (record->size < sizeof(raw::EventFixed)) return false;
  const char* base = reinterpret_cast<const char*>(record);
  view->fixed = reinterpret_cast<const raw::EventFixed*>(record);
  const char* p = base + sizeof(raw::EventFixed);
  const char* end = base + record->size;
  for (uint32_t bits = view->fixed->present; bits; bits &= bits - 1) {
    const int field = __builtin_ctz(bits);
    if (field >= static_cast<int>(raw::kFieldCount)) return false;
    if (raw::Is64(static_cast<raw::EventField>(field))) {
      if (p + 8 > end) return false;
      std::memcpy(&view->fields[field], p, 8);
      p += 8;
    } else {
      if (p + 4 > end) return false;
      int32_t v;
      std::memcpy(&v, p, 4);
      view->fields[field] = v;
      p += 4;
    }
  }
  const size_t completed = 4 * view->fixed->n_completed;
  const size_t resolved = sizeof(raw::ResolvedEntry) * view->fixed->n_resolved;
  const size_t started = 4 * view->fixed->n_reqs;
  if (p + completed + resolved + started > end) return false;
  view->completed = reinterpret_cast<const int32_t*>(p);
  view->resolved = p + completed;
  view->started = reinterpret_cast<const int32_t*>(p + completed + resolved);
  return true;
}

bool ParseComm(const raw::RecordHeader* record, CommView* view) {
  if (record->size < sizeof(raw::CommFixed)) return false;
  view->fixed = reinterpret_cast<const raw::CommFixed*>(record);
  const size_t n = static_cast<size_t>(view->fixed->size) + view->fixed->remote_size;
  if (view->fixed->size < 0 || view->fixed->remote_size < 0 ||
      sizeof(raw::CommFixed) + 4 * n > record->size) {
    return false;
  }
  view->members = reinterpret_cast<const int32_t*>(view->fixed + 1);
  view->remote = view->members + view->fixed->size;
  return true;
}

bool ParseSample(const raw::RecordHeader* record, SampleView* view) {
  if (record->size < sizeof(raw::SampleFixed)) return false;
  view->fixed = reinterpret_cast<const raw::SampleFixed*>(record);
  if (sizeof(raw::SampleFixed) + 8 * static_cast<size_t>(view->fixed->depth) > record->size) {
    return false;
  }
  view->frames = reinterpret_cast<const uint64_t*>(view->fixed + 1);
  return true;
}

std::string_view RecordText(const raw::RecordHeader* record) {
  const auto* fixed = reinterpret_cast<const raw::TextFixed*>(record);
  if (record->size < sizeof *fixed || sizeof *fixed + fixed->length > record->size) return {};
  return std::string_view(reinterpret_cast<const char*>(fixed + 1), fixed->length);
}

}  // namespace rp::recorder
