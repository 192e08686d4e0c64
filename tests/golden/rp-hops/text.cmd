# The report of the small log: s0's two drops, the 9 us links (8 us of
# serialisation for 1000 bytes at 1 Gb/s plus 1 us), h1's 5 us clock offset.
rp-hops --format text testdata/traces/hops_small.ndjson
