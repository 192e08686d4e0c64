rp-clocksync --no-amortize --min-latency 150 testdata/traces/skewed.ndjson | rp-cat -t mpi
