rp-clocksync testdata/traces/skewed.ndjson | rp-phases | rp-cat -t phase
