(head -1 testdata/traces/tiny.ndjson; head -c 10485760 /dev/zero | tr "\0" a; echo) | rp-cat
