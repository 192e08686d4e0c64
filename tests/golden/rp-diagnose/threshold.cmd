# tests/golden/rp-diagnose/cpath.cmd's late sender saves 13.8% of the
# run, its imbalance 9.3%: above a 9% threshold both stay, above 10% only
# the late sender, above 14% neither (exit 1: nothing found).
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 9 | grep -c '"finding"'
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 10 | grep -c '"finding"'
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough --threshold 14 | grep -c '"finding"'
