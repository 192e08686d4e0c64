# A link slower than the window: 1000 bytes at 1 Mb/s take 8 ms, the
# window is 1 ms; the arrival is matched within the window of when it was
# due, not of the departure: one complete path.
rp-hops testdata/traces/hops_slow.ndjson
