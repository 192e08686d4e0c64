# --cost wall: the most costly path is the critical path (890 ns).
rp-repr --no-passthrough -k 2 --cost wall testdata/traces/cpath.ndjson | rp-cat -t path
