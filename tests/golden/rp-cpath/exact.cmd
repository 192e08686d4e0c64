# testdata/traces/cpath.ndjson, worked by hand. The application's time
# runs from 10 (every MPI_Init returns) to 900 (rank 0 calls MPI_Finalize,
# the last to): 890 ns; MPI_Init and MPI_Finalize weigh nothing.
# window 0 (to the Barrier): rank 2 sends at 400, so rank 0's Waitall is
#   ready at 400 and ends at 500 (path 390 + 100); the Barrier's last entry
#   is rank 1 at 650 after 640 ns of computation: every rank's path to its
#   Barrier exit (700) runs through rank 1's entry -> decided: rank 1's
#   computation 10-650.
# window 1: the Bcast root (rank 0) enters last (710): ranks 1 and 2 wait
#   for it; rank 0 calls MPI_Finalize last (900): transfer 650-700 onto
#   rank 0, then rank 0 alone: compute 700-710, Bcast 710-720, compute
#   720-900. Length 640 + 50 + 10 + 10 + 180 = 890, the application's time.
# Zeroing the computation before the Barrier (site 4): entries 490, 0, 410
#   -> exits 540; Bcast ready 550; rank 0 ends at 550 + 10 + 180 = 740 (-150).
# Imbalance of the Barrier: start_max 650, end_min 700: execution 50 each,
#   wait_before 200 + 0 + 50 (rank 2: 200, rank 0: 50). MPI_Init and
#   MPI_Finalize have no imbalance row: they are outside the application.
rp-cpath --no-passthrough testdata/traces/cpath.ndjson
