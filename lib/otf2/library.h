// What the OTF2 importer and exporter share: OTF2's error messages caught
// instead of printed, owners that close the library's handles, and the
// attribute that carries an MPI call's rp call site through an archive.
#ifndef RP_LIB_OTF2_LIBRARY_H_
#define RP_LIB_OTF2_LIBRARY_H_

#include <otf2/otf2.h>

#include <memory>
#include <string>

namespace rp::otf2 {

// The attribute on an MPI call's Enter naming its call site's region
// (type OTF2_TYPE_REGION); rp-cat --to otf2 writes it, the importer
// prefers it to the enclosing region.
inline constexpr char kSiteAttribute[] = "rp::site";

// OTF2 has no event for MPI_Send_init / MPI_Recv_init (what a persistent
// request sends shows only when it is started): on their Enter, rp-cat
// --to otf2 writes what they make as attributes, so that the round trip
// keeps persistent messages matched. Peer: world rank (INT64); comm: the
// communicator (COMM); tag, bytes, req: INT64.
// Probes (no OTF2 event either) carry the same, with req -1, so that the
// message a matched probe took stays its own; matched probes and receives
// carry their message handle as "rp::msg" (INT64). A value not known is
// -1 (bytes of a probe that found no message; req of a probe).
inline constexpr const char* kInitAttributes[] = {"rp::peer", "rp::tag", "rp::bytes", "rp::comm", "rp::req"};
inline constexpr int kInitAttributeCount = 5;
inline constexpr char kMsgAttribute[] = "rp::msg";

// While one lives, OTF2's error messages are kept (the last few) instead
// of printed on stderr. Not thread-safe: OTF2's handler is process-wide.
class ErrorCapture {
 public:
  ErrorCapture();
  ~ErrorCapture();
  ErrorCapture(const ErrorCapture&) = delete;
  ErrorCapture& operator=(const ErrorCapture&) = delete;

  // ": <OTF2's last message>", or "" when it said nothing.
  std::string Tail() const;
  void Clear() { last_.clear(); }

 private:
  static OTF2_ErrorCode Capture(void* user, const char* file, uint64_t line, const char* function,
                                OTF2_ErrorCode code, const char* format, va_list args);
  std::string last_;
  OTF2_ErrorCallback previous_;
  void* previous_data_ = nullptr;
};

// Flush callbacks for writing: flush every full buffer, and write no
// BufferFlush events (no post-flush callback).
inline OTF2_FlushType FlushAlways(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
inline const OTF2_FlushCallbacks kFlushCallbacks = {&FlushAlways, nullptr};

struct Library {
  struct CloseReader {
    void operator()(OTF2_Reader* r) const { OTF2_Reader_Close(r); }
  };
  struct CloseArchive {
    void operator()(OTF2_Archive* a) const { OTF2_Archive_Close(a); }
  };
  using Reader = std::unique_ptr<OTF2_Reader, CloseReader>;
  using Archive = std::unique_ptr<OTF2_Archive, CloseArchive>;
};

}  // namespace rp::otf2

#endif  // RP_LIB_OTF2_LIBRARY_H_
