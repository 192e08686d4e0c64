// rp-cat's conversions between rp-trace streams and other tools' formats:
// OTF2 archives in (Score-P) and out (Vampir, otf2-print), Perfetto traces
// out (ui.perfetto.dev).
#ifndef RP_LIB_CAT_CONVERT_H_
#define RP_LIB_CAT_CONVERT_H_

#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/perfetto/export.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"

namespace rp::cat {

// The OTF2 archive (anchor file or its directory) as an rp stream on
// `out`, which it closes; what was skipped is said on stderr.
Status FromOtf2(const std::string& archive, trace::Writer& out);

// The stream as an OTF2 archive in directory `dir` (`force`: replace an
// archive already there).
Status ToOtf2(trace::InputSet& input, const std::string& dir, bool force);

// The stream read from `inputs` as a Perfetto trace in `path` ("-":
// stdout, refused on a terminal unless `force`).
Status ToPerfetto(trace::InputSet& input, const std::vector<std::string>& inputs, const std::string& path,
                  const perfetto::ExportOptions& options, bool force);

}  // namespace rp::cat

#endif  // RP_LIB_CAT_CONVERT_H_
