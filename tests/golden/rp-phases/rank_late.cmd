# testdata/traces/rank_late.ndjson: rank 2's records after its first
# barrier come last (a trace not in time order). The header names 3 ranks,
# so the windows wait for rank 2: phases 0..3 have 3 barriers each (one
# cluster, iterations 0..3) and phase 4 the three MPI_Finalize calls.
rp-phases testdata/traces/rank_late.ndjson | rp-cat -t phase
