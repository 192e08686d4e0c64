# Rank 1's clock record puts it 2^62 - 904 ns after rank 0's clock: its
# MPI_Init (local 1000) maps to 4611686018427388000, so the run's times
# span more than 2^61 ns, where the repair's shifts could overflow. An
# input error naming the rank, its event and its clock.
rp-clocksync testdata/bad/clock_far_away.ndjson
