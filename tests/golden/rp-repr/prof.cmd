# testdata/traces/samples.ndjson (worked in tests/golden/rp-cpath/samples.cmd)
# in its two phases, k = 2, path profiles. Phase 0: rank 0's path (100:
# heavy 75, light 25, by its samples) and rank 1's (40: no samples, so
# main, which calls the Barrier ending it); the 100% path spent 60 more,
# heavy +75, light +25, main -40. Phase 1: rank 0's 80 (heavy, by the
# nearest sample) against rank 1's 30 (main). The run: both phases summed.
rp-phases testdata/traces/samples.ndjson | rp-repr --no-passthrough -k 2 --space prof
