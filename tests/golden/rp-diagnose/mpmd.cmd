# Two programs in one run (testdata/traces/diagnose_mpmd.ndjson): ranks 0
# and 1 reduce over their own communicator at m.c:10, ranks 2 and 3 over
# theirs at m.c:11, then all meet in a Barrier. A phase's computation:
# 200, 500, 700 and 1,100 ns. Group {2, 3} computes 900 per rank, all ranks
# 625: an mpmd imbalance of 275 a phase (825 in cluster 1's 3 phases).
# Within the groups: ranks 2 and 3 wait 400 and 0 at the Barrier (avg -
# min 200 a phase), ranks 0 and 1 900 and 600 (150).
rp-phases testdata/traces/diagnose_mpmd.ndjson | rp-diagnose --format text
