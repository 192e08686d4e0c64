rp-record -o /tmp/rp-golden.ndjson -- no-such-launcher -np 2 ./app
