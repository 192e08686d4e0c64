rp-cpath --format text testdata/traces/cpath.ndjson
