rp-cat -z testdata/traces/tiny.ndjson | head -c 120 | rp-cat
