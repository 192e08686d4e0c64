rp-cat -o /nonexistent-dir/out.ndjson testdata/traces/tiny.ndjson
