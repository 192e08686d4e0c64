rp-cat testdata/bad/empty.ndjson
