# A packet first seen inside the network that comes back to where it was
# first seen is not joined to itself: one gap path A -> B.
rp-hops testdata/traces/hops_selfjoin.ndjson
