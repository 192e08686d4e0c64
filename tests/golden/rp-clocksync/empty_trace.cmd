# A stream with a header and no events: the header and a clock record per
# rank are written, and the exit code is 1 (nothing usable), as rp-phases
# and rp-cpath do.
head -1 testdata/traces/tiny.ndjson | rp-clocksync
