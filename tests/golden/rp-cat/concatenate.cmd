rp-cat testdata/traces/tiny.ndjson - < testdata/traces/tiny.ndjson | rp-cat --count
