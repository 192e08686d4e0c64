# Samples after the last call (a window of their own, without calls): the
# run's paths are still written, from the last window with calls.
rp-repr --no-passthrough -k 2 testdata/traces/repr_trailing_samples.ndjson | rp-cat -t path
