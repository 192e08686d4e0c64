# tests/golden/rp-diagnose/cpath.cmd as people read it.
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --format text
