# A 4 x 4 non-periodic halo exchange (testdata/traces/diagnose_grid.ndjson),
# rank 5 computing 1,875 ns more a phase: edge and corner ranks skip the
# sends of missing neighbours, so their control flows differ from the
# interior's, but their call sites mostly agree: one program, not MPMD.
# One load imbalance on rank 5, its saving the what-if (3 phases of cluster
# 1 at about 1,875 ns, a little less as the ranks leave each Allreduce
# apart).
rp-phases testdata/traces/diagnose_grid.ndjson | rp-diagnose --format text | grep -A1 '^[0-9]'
