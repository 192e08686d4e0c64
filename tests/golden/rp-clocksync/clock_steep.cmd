# testdata/traces/clock_steep.ndjson: rank 1's offset is 500 ns at local
# 1000 and 1e12 + 500 and 1e12 + 700 ns (two measurements at one time:
# their mean, 1e12 + 600) at local 2000: a drift of 1e9 (1e15 ppm), which
# no clock has. It is warned of and only the offset is used: rank 1's
# times move by +500 (MPI_Init 1500-1600, MPI_Finalize 2500-2600).
rp-clocksync --report testdata/traces/clock_steep.ndjson
