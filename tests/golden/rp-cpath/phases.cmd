# Per phase: phase 0 (to the Barrier) carries 700 ns of the path, phase 1
# the other 210.
rp-phases testdata/traces/cpath.ndjson | rp-cpath --no-passthrough --no-zeroing | rp-cat -t cp_summary
