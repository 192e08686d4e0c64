rp-cat testdata/bad/schema_major.ndjson
