rp-record --merge /nonexistent-dir -o /tmp/rp-golden.ndjson
