# The summaries alone, with the clocks trusted (--calibrate 0): h1's 5 us
# offset then shows as 14 us links into h1 (9 + 5).
rp-hops --no-paths --calibrate 0 testdata/traces/hops_small.ndjson
