# testdata/traces/cpath.ndjson, worked by hand (run starts at 0):
# window 0 (to the Barrier): rank 2 sends at 400, so rank 0's Waitall is
#   ready at 400 and ends at 500 (path 400 + 100); the Barrier's last entry
#   is rank 1 at 650 after 640 ns of computation: every rank's path to its
#   Barrier exit (700) runs through rank 1's entry -> decided: rank 1's
#   Init and its computation 10-650.
# window 1: the Bcast root (rank 0) enters last (710): ranks 1 and 2 wait
#   for it; rank 0's Finalize ends last (910): transfer 650-700 onto rank 0,
#   then rank 0 alone: compute 700-710, Bcast 710-720, compute 720-900,
#   Finalize 900-910. Length 910 = the run.
# Zeroing the computation before the Barrier (site 4): entries 500, 10, 420
#   -> exits 550; Bcast ready 560; rank 0 ends at 560+10+180+10 = 760 (-150).
# Imbalance of the Barrier: start_max 650, end_min 700: execution 50 each,
#   wait_before 200 + 0 + 50... (rank 2: 200, rank 0: 50).
rp-cpath --no-passthrough testdata/traces/cpath.ndjson
