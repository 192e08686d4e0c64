# rp-phases on its own output: the earlier phase records are replaced, not
# written again (one per id), and the mpi records keep one phase each.
rp-phases testdata/traces/tiny.ndjson | rp-phases | rp-cat --count
