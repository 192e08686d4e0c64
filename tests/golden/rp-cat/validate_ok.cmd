rp-cat --validate testdata/traces/tiny.ndjson
