# A trace not through rp-clocksync: the receives that end before their
# sends began are counted, and the user is told to run rp-clocksync.
rp-repr --no-passthrough -k 2 testdata/traces/skewed.ndjson
