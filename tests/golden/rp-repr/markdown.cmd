rp-phases testdata/traces/samples.ndjson | rp-repr -k 2 --format markdown
