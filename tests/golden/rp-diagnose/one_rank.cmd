# One rank: nobody waits for anybody, load balance 100%. Its Barrier's 5 ns
# lie on the critical path (290 ns, from MPI_Init's exit at 10 to
# MPI_Finalize at 300): zeroing them saves 5 ns, 1.7% of the run.
rp-phases testdata/traces/one_rank.ndjson | rp-diagnose --format text
