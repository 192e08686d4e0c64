rp-record --merge /tmp -o /tmp/rp-golden.ndjson -- mpirun ./app
