# testdata/traces/cpath.ndjson in its two phases, worked by hand.
# Phase 0 (10 to the Barrier's exit at 700): ranks compute 115 (rank 0:
#   10 + 5 + 100), 640 and 420 (390 + 0 + 30); they enter the Barrier at
#   600, 650 and 450 and wait 50, 0 and 200 for the last: the symptom avg
#   - min is 250/3 - 0 = 83 ns. Causes (no samples: the function calling
#   each MPI call): main 100, 640, 30, max - mean 383; exchange 15, 0, 390,
#   max - mean 255. But balancing main (257 on each rank) makes rank 0,
#   which waited 470 in its Waitall, reach the Barrier at 757, later than
#   650: the what-if saves nothing, and no imbalance is reported (the
#   threshold 0 shows it with severity 0). The path's 640 of computation
#   before the Barrier (rank 1), an average rank 257, is a critical
#   computation instead: 383, at most the 150 that zeroing it saves.
# Phase 1 (700 to 900) ends at MPI_Finalize, not a synchronization: no
#   symptom. Computation 190, 55, 10.
# Wait states: rank 0's Waitall (entered at 30) waits for rank 2's Isend
#   (entered at 400): a late sender of 370 ns, 370/3 = 123 ns per rank.
#   Its delay: rank 2 computed 390 before the Isend (exchange, the
#   function calling it), rank 0 5 before the Waitall (exchange): 385 more
#   in exchange, charged with all 370. The Barrier's waiting closes phase
#   0 (the imbalance above); the Bcast's root enters at 710, ranks 2 and 1
#   wait 10 and 5: 5 ns per rank, below 1%.
# Critical path (computed here with lib/cpath: rp-cpath did not run; its
#   records are those of tests/golden/rp-cpath): the path computes 180
#   before MPI_Finalize (rank 0, 720 to 900), an average rank 240/3 = 80:
#   excess 100, and zeroing that computation shortens the path by 100: a
#   critical computation of 100. The path spends 50 in the Barrier and 10 in
#   the Bcast (zeroing them: 50 and 10 shorter): communication on the path.
#   exchange computes 405 of all ranks' 2520 (16.1%), none on the path: an
#   off-path hot spot, saving nothing.
# Timeline: cluster 0 (690 ns, the longest) drawn from its only phase,
#   10 to 700 in 240 bins of 2.875 ns, one lane per rank; the critical
#   path through it: rank 1 from 10 to 650, then rank 0 to 700.
# Efficiencies, run: 890 ns; computation 305, 695, 430 (mean 476, max
#   695); ideal 640 + 190 = 830 (each phase's longest path of computation).
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough
