# The same trace as people read it: functions first, then call sites.
rp-cpath --format text testdata/traces/samples.ndjson
