# testdata/traces/collective_missing.ndjson: rank 1's record of the first
# of two broadcasts is missing (its seq starts at 1). Its one call pairs
# with the others' first (instance 0: 3 members), and instance 1 has 2 of
# the communicator's 3: warned of. Rank 1's exit at 255 follows the root's
# entry at 100 either way: no time moves.
rp-clocksync testdata/traces/collective_missing.ndjson | rp-cat -t clock
