rp-cat -t header,rank,comm,site,mpi testdata/traces/skewed.ndjson | rp-clocksync | rp-cat -t clock
