# Without phase records the whole run is one phase (and rp-repr says so):
# its 100% path carries the critical path's computation (830 of rp-cpath's
# 890 ns; the rest is MPI and transfer, not in --cost compute).
rp-repr --no-passthrough -k 2 testdata/traces/cpath.ndjson
