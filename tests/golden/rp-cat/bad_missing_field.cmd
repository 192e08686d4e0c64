rp-cat testdata/bad/missing_field.ndjson
