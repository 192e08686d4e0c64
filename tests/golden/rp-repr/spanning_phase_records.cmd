# tests/golden/rp-repr/spanning_phase.cmd with the phase records rp-phases
# writes: the phase's count of calls tells where it ends. The same paths.
rp-repr --no-passthrough -k 2 testdata/traces/repr_spanning_phase_records.ndjson
