rp-cat -t header,comm,mpi testdata/traces/tiny.ndjson | rp-clocksync --method pingpong
