rp-cpath --algo fastest testdata/traces/cpath.ndjson
