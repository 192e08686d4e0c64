rp-cpath --format markdown testdata/traces/cpath.ndjson
