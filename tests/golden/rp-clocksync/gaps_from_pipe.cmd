# --method gaps reads its input twice: a named pipe (here a process
# substitution) is copied once and read from the copy; the result is the
# same as from the file.
diff <(rp-clocksync --method gaps <(cat testdata/traces/skewed.ndjson) 2>&1) <(rp-clocksync --method gaps testdata/traces/skewed.ndjson 2>&1) && echo same
