# The same trace with --hold 3: rank 2, silent for 3 records while ranks 0
# and 1 pass barrier 1, is taken as finished and windows end without it.
# Its late barriers keep their own phase ids (1, 2, 3; no phase record is
# written twice) but phases 1..3 were signed without them: 2 events each,
# a cluster of their own. Both warnings say so, with counts.
rp-phases --hold 3 testdata/traces/rank_late.ndjson
