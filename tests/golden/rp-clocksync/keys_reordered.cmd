# testdata/traces/keys_reordered.ndjson: rank 1's Recv has "t1" before
# "t0" (valid JSON, keys in any order). No clock records: times stay as
# they are. The Recv ends at 200, before the Send starts at 1000: its end
# moves to 1000; the ramp starts at its own start (rank 1's first event),
# where it is 0, so t0 stays 100. Both values are rewritten where they lie.
rp-clocksync --report testdata/traces/keys_reordered.ndjson
