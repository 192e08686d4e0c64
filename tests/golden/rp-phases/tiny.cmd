rp-phases testdata/traces/tiny.ndjson
