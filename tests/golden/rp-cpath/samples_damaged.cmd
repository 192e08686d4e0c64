# Damaged samples are counted and warned of, never fatal. Rank 0: t=5
# comes before MPI_Init returned (outside); t=40, 60 and 80 have no
# positive weight (counted with the rank's last, 20), t=40 and 60 name
# site 77, which no site record defines (left out: heavy), t=80 has an
# empty stack ("?"): its computation (10, 100] is heavy 60, "?" 30; (110,
# 120] has none and takes the nearest, t=80: "?" 10. Rank 1's one sample,
# t=105, lies inside its Barrier (outside), yet is the nearest for its
# last computation: heavy 10; its first, in the window before it, goes to
# its call site (main). Rank 2 has no samples: main 40, and "?" 10 for the
# MPI_Finalize without a site.
rp-cpath --no-passthrough testdata/bad/samples_damaged.ndjson | rp-cat -t cp_summary -t cp_profile | grep -v '"scope":"site"'
