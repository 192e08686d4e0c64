rp-cpath --no-passthrough testdata/traces/cpath.ndjson | rp-report --format markdown
