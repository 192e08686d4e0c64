rp-cat - < testdata/traces/tiny.ndjson | head -2
