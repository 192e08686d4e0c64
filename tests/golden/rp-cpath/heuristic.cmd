# The topological-sorting heuristic: the longest computation of each
# overlapping group (rank 1's 10-650, then rank 0's 720-900).
rp-cpath --algo heuristic --no-passthrough testdata/traces/cpath.ndjson | rp-cat -t cp_segment -t cp_summary
