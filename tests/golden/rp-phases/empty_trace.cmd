head -1 testdata/traces/tiny.ndjson | rp-phases
