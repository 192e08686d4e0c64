// The online critical path (rp-record --online) as records: rank 0's raw
// kOnline record (collector/raw_format.h) turned into the cp_summary and
// cp_profile records rp-cpath writes, by lib/online's ToScope and
// lib/cpath's RecordWriter (algo "online"); and the representative paths
// kept in the run (--online-paths K) into the whole run's path and
// path_interval records rp-repr writes (lib/repr's WritePath).
#ifndef RP_LIB_RECORDER_ONLINE_ANSWER_H_
#define RP_LIB_RECORDER_ONLINE_ANSWER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/record.h"
#include "lib/trace/writer.h"

namespace rp::recorder {

struct OnlineCounts {
  int32_t ranks = 0;
  int64_t unpaired_receives = 0, unpaired_sends = 0, skipped_calls = 0;
  int64_t piggybacks = 0, piggyback_bytes = 0;
};

// Whether a kOnline record is one rank's path left when it ended before
// MPI_Finalize (collector/raw_format.h), and its length (false: malformed).
bool PartialOnline(std::string_view record, bool* partial, int64_t* length);

// The return addresses the record names (rank 0's), to be given site ids;
// false when the record is malformed.
bool OnlineAddresses(std::string_view record, std::vector<uint64_t>* addresses);

// Writes the answer. `site_of`: rank 0's address -> first site id (its
// innermost frame); `sites`: the site records written.
Expected<OnlineCounts> WriteOnlineAnswer(std::string_view record, int world,
                                         const std::unordered_map<uint64_t, std::pair<int64_t, int64_t>>& site_of,
                                         const std::vector<trace::SiteRecord>& sites, trace::Writer& writer);

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_ONLINE_ANSWER_H_
