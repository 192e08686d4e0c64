# testdata/traces/cpath.ndjson in its two phases, k = 3, worked by hand.
# Phase 0 (to the Barrier): rank 0 computes 10 + 5 before its Waitall,
#   which joins rank 2's 390 (computed before its Isend): {390,
#   15}; then 100 more: {490, 115}. Rank 1: 640. Rank 2: 390 + 30 = 420.
#   The Barrier's hub holds 640, 490, 420, 115: positions 0, 2 (1.5
#   rounded up) and 3: 640 (rank 1), 420 (rank 2), 115 (rank 0).
# Phase 1 (to MPI_Finalize): rank 0 computes 10 before the Bcast it roots,
#   then 180: 190. Rank 1 computes 5, leaves the Bcast with its 5 and the
#   root's 10, then 50: {60, 55}. Rank 2: 0, then {10, 0} + 10: {20, 10}.
#   Of 190, 60, 55, 20, 10: positions 0, 2, 4: 190, 55, 10.
rp-phases testdata/traces/cpath.ndjson | rp-repr --no-passthrough -k 3
