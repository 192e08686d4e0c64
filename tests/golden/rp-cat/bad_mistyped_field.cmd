rp-cat testdata/bad/mistyped_field.ndjson
