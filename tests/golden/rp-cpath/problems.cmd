# A receive ending before its send began (local clocks on three hosts), a
# receive nobody sends to, a rank that died: warnings, partial results.
rp-cpath --no-passthrough testdata/traces/cpath_problems.ndjson | rp-cat -t cp_summary
