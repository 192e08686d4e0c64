rp-cat --level 40 testdata/traces/tiny.ndjson
