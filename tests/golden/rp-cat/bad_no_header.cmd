rp-cat testdata/bad/no_header.ndjson
