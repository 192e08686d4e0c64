rp-cat --summary testdata/traces/tiny.ndjson
