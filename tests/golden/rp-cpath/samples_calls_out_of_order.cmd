# Rank 0's MPI_Comm_rank ends (40) before it starts (100), so its next
# computation (40, 80] ends before the one before it (10, 100]: the path's
# computations are still found and named as in the all-ranks column
# (heavy 45 on the path and in all, not charged to a call site).
rp-cpath --no-passthrough testdata/bad/samples_calls_out_of_order.ndjson | rp-cat -t cp_profile | grep '"scope":"function"'
