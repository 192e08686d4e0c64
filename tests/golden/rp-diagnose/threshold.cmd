# tests/golden/rp-diagnose/cpath.cmd's findings save 16.9%, 13.8%, 11.2%,
# 5.6% and 1.1% of the run; its off-path hot spot (0%) is kept whatever the
# threshold. Above 12%: two and the hot spot; above 15%: one and the hot
# spot; above 20%: the hot spot alone. At 0 every finding that saves
# anything: the late broadcast's 5 ns per rank too (the imbalance saves
# nothing and is not one).
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 12 | grep -c '"finding"'
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 15 | grep -c '"finding"'
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 20 | grep -c '"finding"'
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 0 | grep -o '"category":"[a-z_]*","severity":[0-9.e-]*'
