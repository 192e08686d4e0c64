# testdata/traces/diagnose_io.ndjson: 2 ranks each compute 1,000 ns before
# a Barrier; 5 of each rank's 10 samples (100 ns each) are in __libc_write
# called by save_state, 5 in solve. save_state does 500 ns of POSIX I/O on
# each rank: 500 per rank, 45.9% of the run's 1,090 (zeroing save_state's
# share of the computations shortens the path by as much). Balanced, not
# serial: an io finding.
rp-phases testdata/traces/diagnose_io.ndjson | rp-diagnose --format text
