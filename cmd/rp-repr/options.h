// The options rp-repr and rp-repr-mpi share.
#ifndef RP_CMD_RP_REPR_OPTIONS_H_
#define RP_CMD_RP_REPR_OPTIONS_H_

#include "lib/cli/tool.h"
#include "lib/repr/repr.h"

namespace rp::repr {

// -k, --select, --space and --cost into `config`.
inline void AddReprOptions(cli::Tool& tool, StageConfig* config) {
  CLI::App& app = tool.app();
  app.add_option("-k,--paths", config->k, "paths kept per phase")
      ->type_name("K")
      ->check(cli::Between(kMinPaths, kMaxPaths));
  tool.AddChoice<Select>("--select", &config->select, {{"repr", Select::kRepr}, {"topk", Select::kTopK}},
                         "repr: uniformly spaced percentiles, 100% to 0%; topk: the k/2 (rounded down) most and "
                         "the other k - k/2 least costly");
  tool.AddChoice<Space>("--space", &config->space, {{"path", Space::kPath}, {"prof", Space::kProf}},
                        "path: each kept path and its tasks; prof: path profiles only, the kept paths' "
                        "costs by function and calling context per phase cluster and for the run (their "
                        "size follows the code, not the run)");
  tool.AddChoice<Cost>("--cost", &config->cost, {{"compute", Cost::kCompute}, {"wall", Cost::kWall}},
                       "compute: a path's computation (its tasks); wall: its length with MPI time, as rp-cpath "
                       "measures it (the most costly path is then the critical path)");
}

}  // namespace rp::repr

#endif  // RP_CMD_RP_REPR_OPTIONS_H_
