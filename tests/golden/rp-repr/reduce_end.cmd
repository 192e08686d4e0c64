# Ranks whose last call is one MPI_Reduce (no MPI_Finalize recorded): the
# root hears the path through the collective's hub, rank 1 holds it from
# its own entry; it is one path, told once. Rank 0 computes 100, rank 1
# 300 before it: two paths, 300 and 100.
rp-repr --no-passthrough -k 5 testdata/traces/repr_reduce_end.ndjson
