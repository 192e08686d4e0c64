rp-report testdata/traces/tiny.ndjson
