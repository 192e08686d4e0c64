# A time beyond +-2^62 ns (146 years) would overflow differences of
# times in every stage: an input error naming the line and field.
rp-phases testdata/bad/time_out_of_range.ndjson
