rp-cat -t comm,site --type rank testdata/traces/tiny.ndjson
