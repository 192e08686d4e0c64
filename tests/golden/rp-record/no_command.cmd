rp-record -o /tmp/rp-golden.ndjson
