# A rank whose last call is in an earlier window (rank 2 records no
# MPI_Finalize: its last call is the Barrier that ends the first window)
# still ends paths: its set after the Barrier counts at the run's end.
# Ranks compute 100, 200, 300 before the Barrier and leave it with
# {300, 200, 100}; then rank 0 computes 50: {350, 250, 150}; rank 1 20:
# {320, 220, 120}; rank 2 nothing. Of the nine, positions 0, 4, 8: 350,
# 220 and 100 (without rank 2's set: 350, 220 and 120).
rp-repr --no-passthrough -k 3 testdata/traces/repr_rank_done_early.ndjson
