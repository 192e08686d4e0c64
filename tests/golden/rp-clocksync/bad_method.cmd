rp-clocksync --method ntp testdata/traces/skewed.ndjson
