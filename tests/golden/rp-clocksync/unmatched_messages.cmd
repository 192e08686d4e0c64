rp-clocksync testdata/bad/inconsistent.ndjson | rp-cat --count
