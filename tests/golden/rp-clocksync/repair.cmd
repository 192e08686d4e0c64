# testdata/traces/skewed.ndjson, worked by hand:
# rank 1: offset -1000 at t=1000, -900 at t=1001000 -> global = t - 1000 + 1e-4 (t - 1000)
#   (Recv 3500-3900 -> 2500-2900, Barrier -> 5001-5501, Finalize -> 6601-6701);
# rank 2: +500 (Send 2000-2050, Barrier 4500-5500, Finalize 6700-6800).
# The only violation: rank 0's Send starts at 3000, rank 1's Recv ends at 2900:
# its end moves to 3000 (+100) and the rest of rank 1 by +100 (Barrier
# 5101-5601, Finalize, in the next window, 6701-6801). The amortisation
# ramps the jump in at --max-slope 0.01 over 10000 ns before the Recv's
# end, from -7100: the Recv's start 2500 moves by floor(100 * 9600 / 10000)
# = 96 to 2596; the other 4 ns stretch the Recv (no interval grows by
# more than 1%), and the 96 lie before rank 1's first event.
rp-clocksync --report testdata/traces/skewed.ndjson
