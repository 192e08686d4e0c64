# --method gaps reads its input twice; from a pipe it keeps a copy, and
# errors still name the input as <stdin> with the line.
cat testdata/bad/missing_field.ndjson | rp-clocksync --method gaps
