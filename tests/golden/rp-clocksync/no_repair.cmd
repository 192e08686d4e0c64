rp-clocksync --no-repair testdata/traces/skewed.ndjson | rp-cat -t mpi
