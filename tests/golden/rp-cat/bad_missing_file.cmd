rp-cat testdata/no/such/file.ndjson
