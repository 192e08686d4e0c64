rp-cpath testdata/bad/empty.ndjson
