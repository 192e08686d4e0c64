# A header claiming 10^8 ranks would size per-rank arrays of gigabytes: an
# input error naming the line, before any memory is taken.
rp-clocksync testdata/bad/ranks_out_of_range.ndjson
