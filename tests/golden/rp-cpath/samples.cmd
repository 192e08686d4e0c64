# testdata/traces/samples.ndjson, worked by hand. Application time 10-200.
# Rank 0, computation (10, 110] (100 ns) holds four samples: t=30 in heavy
#   (app.c:5), t=60 in libc's clock_nanosleep called by light (charged to
#   light, app.c:7), t=90 in heavy with weight 0 (counted with the rank's
#   last weight, 20), t=110 on the boundary (a sample stands for the time
#   before it: this computation) in std::vector::operator[] inlined from a
#   system header into heavy (charged to heavy, app.c:6). Equal weights:
#   heavy 75 (app.c:5 50, app.c:6 25), light 25.
# Rank 0, computation (120, 200] (80 ns) holds none: the nearest sample is
#   t=110 (10 before it) rather than t=215 (15 after it): heavy app.c:6,
#   80. t=215 comes after MPI_Finalize was called: outside.
# Rank 1 has no samples: its computations (10, 50] and (120, 150] count
#   for the calls ending them, main app.c:20 and app.c:30.
# The path: rank 0 computes 10-110, enters the Barrier last (110-120),
#   computes 120-200: 190 = 100 sampled + 80 nearest + 10 MPI.
#   heavy 75 + 80 = 155 (81.6%), light 25, main 10 (its Barrier).
# Zeroing heavy: rank 0 reaches the Barrier after 25, rank 1 after 40;
#   exits 40 + 10 = 50; rank 0 then 0 more, rank 1 30: 80 (-110).
#   Zeroing light: 75 + 10 + 80 = 165 (-25).
rp-cpath --no-passthrough testdata/traces/samples.ndjson | rp-cat -t cp_summary -t cp_profile -t cp_zeroing -t cp_top
