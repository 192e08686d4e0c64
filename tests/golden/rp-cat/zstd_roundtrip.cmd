rp-cat -z testdata/traces/tiny.ndjson | rp-cat | cmp - testdata/traces/tiny.ndjson && echo identical
