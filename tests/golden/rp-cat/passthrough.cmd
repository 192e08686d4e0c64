rp-cat testdata/traces/tiny.ndjson
