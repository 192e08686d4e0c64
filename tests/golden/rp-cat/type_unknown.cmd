rp-cat --type cp_path testdata/traces/tiny.ndjson
