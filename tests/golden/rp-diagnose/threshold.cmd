# The imbalance of tests/golden/rp-diagnose/cpath.cmd saves 9.3% of the
# run: above a 9% threshold it stays, above 10% it is dropped.
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 9 | grep -c '"finding"'
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 10 | grep -c '"finding"'
