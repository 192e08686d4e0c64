// rp-diagnose --compare A B: what changed between two runs' diagnoses.
// Findings are matched by category, phase cluster and site (MPI call,
// function, file and line: names, not addresses or site ids, which differ
// between builds); each pair is resolved (in A only), new (in B only), or
// improved, unchanged or regressed by its change of severity against the
// noise band. The efficiency records of both follow, marked run "a" and
// "b", for the tables side by side.
//
// A run is either a stream rp-diagnose already wrote (its header names
// rp-diagnose: its finding and efficiency records are taken) or a trace,
// diagnosed here with `config`.
#ifndef RP_LIB_DIAGNOSE_COMPARE_H_
#define RP_LIB_DIAGNOSE_COMPARE_H_

#include "lib/base/status.h"
#include "lib/diagnose/diagnose.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"

namespace rp::diagnose {

struct CompareConfig {
  Config diagnose;
  double band = 0.01;  // severity changes within this share of run time are noise
};

// Writes finding_change records, most severe first, then A's and B's
// efficiency records, and closes `out`.
Status Compare(const CompareConfig& config, trace::InputSet& a, trace::InputSet& b, trace::Writer& out);

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_COMPARE_H_
