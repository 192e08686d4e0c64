rp-repr -k 65 testdata/traces/cpath.ndjson
