# Per phase: phase 0 (from MPI_Init's return at 10 to the Barrier) carries
# 690 ns of the path, phase 1 (to rank 0's call of MPI_Finalize at 900) the
# other 200.
rp-phases testdata/traces/cpath.ndjson | rp-cpath --no-passthrough --no-zeroing | rp-cat -t cp_summary
