rp-record -o /nonexistent-dir/run.ndjson -- true
