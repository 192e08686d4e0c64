# Backward replay finds the same path as the longest path.
diff <(rp-cpath --algo replay --no-passthrough testdata/traces/cpath.ndjson | rp-cat -t cp_segment) <(rp-cpath --no-passthrough testdata/traces/cpath.ndjson | rp-cat -t cp_segment) && echo same
