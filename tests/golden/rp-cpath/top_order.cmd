# cp_top numbers the functions with more than 1/m of the path largest
# first (appendix B), not by name: poll 3030, check 3010, main 1900,
# exchange 580, dump 470 ns of the path.
rp-cpath --no-passthrough --top 50 testdata/traces/diagnose_comm.ndjson | rp-cat -t cp_top
