# Tuples with negative times are not a clock's: counted and skipped.
rp-hops testdata/traces/hops_neg.ndjson
