# Without rp-phases the run is one phase, ending at MPI_Finalize: no
# synchronization closes it, so no imbalance is measured, and rp-diagnose
# says to run rp-phases. The efficiencies are the run's. The Barrier's
# waiting is now a wait state: ranks 2 and 0 enter at 450 and 600 and wait
# 200 and 50 for rank 1 (650), 83 ns per rank; rank 1 computed 640 before
# it (main), rank 2 30 and rank 0 100: main's delay, 610 and 540, is
# charged with both waits. The late sender is cpath.cmd's. The path's
# 100 ns more than an average rank before MPI_Finalize is main's too
# (without samples, the function making the call), but the wait state that
# names main first saves only 83: the critical computation is told too.
rp-diagnose --no-passthrough testdata/traces/cpath.ndjson
