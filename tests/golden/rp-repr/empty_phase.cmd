# A phase record without calls (id 5, 0 events) between two phases: it has
# no paths, and the others' are those of tests/golden/rp-repr/
# spanning_phase_records.cmd.
rp-repr --no-passthrough -k 2 testdata/traces/repr_empty_phase.ndjson
