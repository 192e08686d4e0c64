# a's clock 5 us behind: the offsets, reckoned from the clock furthest
# ahead, are h 0, s 0, a -5000, by the links' least delays both ways;
# every link then 9 us (8 of serialisation and 1 of propagation).
rp-hops testdata/traces/hops_skew.ndjson
