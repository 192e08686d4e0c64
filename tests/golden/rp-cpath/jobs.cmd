# -j splits graph building across threads: the same bytes.
rp-cpath -j 3 testdata/traces/cpath.ndjson | cmp - <(rp-cpath testdata/traces/cpath.ndjson) && echo same
