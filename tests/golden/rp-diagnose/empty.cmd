# A stream without mpi records: nothing to diagnose, exit 1.
head -2 testdata/traces/cpath.ndjson | rp-diagnose --no-passthrough
