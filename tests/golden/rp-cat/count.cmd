rp-cat --count testdata/traces/tiny.ndjson
