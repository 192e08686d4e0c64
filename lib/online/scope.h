// The online answer as rp-cpath's Scope, so that lib/cpath's RecordWriter
// writes the same cp_summary and cp_profile records rp-cpath writes (algo
// "online"): the final path's site shares as the critical path's, and the
// sites' time summed over every rank (kept per rank during the run, added
// up once at MPI_Finalize) as the profile's time.
#ifndef RP_LIB_ONLINE_SCOPE_H_
#define RP_LIB_ONLINE_SCOPE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "lib/cpath/scope.h"
#include "lib/graph/path.h"
#include "lib/online/path.h"

namespace rp::online {

// One call site's time over all ranks.
struct SiteTotal {
  uint64_t key = 0;  // as in the path's shares (SiteKeys)
  int64_t compute = 0, mpi = 0, calls = 0;
  int32_t fn = -1;   // the MPI function called there (lib/mpi index)
};

// `id` gives a key's site id in the stream's site records (window::kNone
// when the site is not named); the run spans [start, end] on the global
// clock. The path's shares of sites no longer kept go to the site kNone.
cpath::Scope ToScope(const Path& path, std::span<const SiteTotal> totals,
                     const std::function<int32_t(uint64_t)>& id, int64_t start, int64_t end);

// The path's zeroing (Path::has_reductions) as rp-cpath's what-ifs, for
// lib/cpath's RecordWriter::WriteZeroings: every named site of `totals`
// (the sites any rank called), computation and calls, with the length the
// path would have without them; sites the path does not keep save
// nothing (none, unless the path summed some apart: then a lower bound).
// Then each sampled function of `functions` (any rank's; by name,
// `function_name` of its key: a procedure, numbered in `procedures`), those
// the path does not keep saving nothing.
std::vector<graph::Zeroings::Result> ToZeroings(const Path& path, std::span<const SiteTotal> totals,
                                                const std::function<int32_t(uint64_t)>& id,
                                                std::span<const uint64_t> functions,
                                                const std::function<std::string(uint64_t)>& function_name,
                                                std::vector<std::string>* procedures);

}  // namespace rp::online

#endif  // RP_LIB_ONLINE_SCOPE_H_
