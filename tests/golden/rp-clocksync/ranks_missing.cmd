# testdata/traces/ranks_missing.ndjson: the header names 3 ranks; rank 2
# has no record at all and rank 4 is beyond every record that names ranks.
# Both are warned of with counts; rank 4's event keeps its time. No clock
# records: identity; nothing violates (the Recv ends at 120, after the
# Send's start at 100), so no time changes.
rp-clocksync testdata/traces/ranks_missing.ndjson
