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
# The whole run (paths run on through the Barrier): every rank leaves it
#   with the hub's 640, 420, 115. Rank 0: + 10 + 180: {830, 610, 305}.
#   Rank 1: + 5 = {645, 425, 120} joins the root's {650, 430, 125}; of the
#   six, positions 0, 3 (2.5 rounded up), 5: {650, 425, 120}, + 50:
#   {700, 475, 170}. Rank 2: + 0 joins the root's: {650, 420, 115}, + 10:
#   {660, 430, 125}. Of the nine: positions 0, 4, 8: 830 (rank 1's 640,
#   then rank 0's 190), 475 (rank 2's 420, then rank 1's 55) and 125
#   (rank 0's 115, then rank 2's 10), after the phases' paths.
rp-phases testdata/traces/cpath.ndjson | rp-repr --no-passthrough -k 3
