// rp-cpath's output records (lib/trace/schema.h: cp_summary, cp_profile,
// cp_imbalance, cp_zeroing, cp_top) made from what a Scope added up, with
// call sites described from the stream's site records.
#ifndef RP_LIB_CPATH_RECORDS_H_
#define RP_LIB_CPATH_RECORDS_H_

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/cpath/code.h"
#include "lib/cpath/scope.h"
#include "lib/graph/path.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::cpath {

class RecordWriter {
 public:
  RecordWriter(const window::Dictionary& dict, trace::Writer& out);

  // The run's (phase kNone) or a phase's cp_summary, cp_profile (by site,
  // and for the run by function, line and calling context too, from
  // `code`) and cp_imbalance (by call site, by process when `ranks`, and
  // for the program). `problems`: the run's; `code` only for the run.
  // A step of the critical path as its cp_segment record.
  Status WriteSegment(const graph::Segment& s);
  struct Span {
    int64_t start, end;
  };
  Status WriteScope(const Scope& scope, int64_t phase, Span span, const char* algo, const Problems& problems,
                    bool ranks, const NamedCode* code = nullptr);
  // cp_zeroing, largest reduction first; procedures are `code`'s functions.
  Status WriteZeroings(const Scope& run, std::vector<graph::Zeroings::Result> results, const CodeProfile& code);
  // The same with the procedures' names given (none: no function what-ifs).
  Status WriteZeroings(const Scope& run, std::vector<graph::Zeroings::Result> results,
                       const std::vector<std::string>& procedures);
  // cp_top: the sites, then the functions, with more than 1/m of the path
  // (appendix B).
  Status WriteTop(const Scope& run, int m, const NamedCode& code);
  // cp_profile rows by function (scope "function") from computation named
  // elsewhere — the online path's sampled functions: by function name, ns
  // on the path and over all ranks — with the MPI calls counted for the
  // function making them, as WriteScope writes them from a CodeProfile.
  Status WriteFunctions(const Scope& run, const std::map<std::string, std::pair<int64_t, int64_t>>& computation);
  // cp_profile rows by calling context (scope "context"): computation
  // charged to a function (of `tree`) called from the node `caller`, on
  // the path and over all ranks.
  struct Charged {
    int32_t caller, function;
    int64_t on_path, all;
  };
  Status WriteContexts(const Scope& run, const profile::ContextTree& tree, const std::vector<Charged>& charged);
  Status WriteContexts(const Scope& run, const NamedCode& code);

 private:
  Status WriteSummary(const Scope& scope, int64_t phase, Span span, const char* algo, const Problems& problems,
                      const NamedCode* code);
  Status WriteProfile(const Scope& scope, int64_t phase);
  Status WriteCodeProfile(const Scope& run, const NamedCode& code);
  Status WriteImbalance(const Scope& scope, int64_t phase, bool ranks);
  // The function containing a site, "?" when its record does not say.
  std::string FunctionOf(int32_t site) const;
  // Every function's (or line's) computation and MPI time, largest on the
  // path first (cp_top numbers them in this order).
  struct Named {
    std::string fn, file;
    int64_t line = 0;
    SiteStats stats;
  };
  std::vector<Named> Functions(const Scope& run, const NamedCode& code, bool by_line) const;
  // Sorted (largest on the path first) and written, by function or line.
  Status WriteNamed(const Scope& run, std::vector<Named> rows, bool by_line);
  template <typename R>
  void DescribeSite(int32_t site, int32_t fn, R* r) const;

  std::unordered_map<int64_t, trace::SiteRecord> sites_;
  profile::Frames frames_;  // the sites' frames: where MPI calls are made
  trace::Writer& out_;
};

// The MPI function of an mpi::kFunctions index, "?" for none.
const char* CallName(int32_t fn);

}  // namespace rp::cpath

#endif  // RP_LIB_CPATH_RECORDS_H_
