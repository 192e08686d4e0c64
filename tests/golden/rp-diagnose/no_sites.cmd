# A trace whose calls have no sites (testdata/traces/diagnose_nosite.ndjson:
# 4 ranks, 5 phases; ranks compute 100, 100, 100 and 400 ns before each
# phase's closing MPI_Allreduce, whose records name no site): the phases
# still close at a global synchronization. Ranks wait 300, 300, 300 and
# 0: avg - min 225 a phase; balancing the computation (175 on each rank)
# ends each phase 225 sooner: 900 in the 4 phases of cluster 1, 225 in
# cluster 0.
rp-phases testdata/traces/diagnose_nosite.ndjson | rp-diagnose --format text
