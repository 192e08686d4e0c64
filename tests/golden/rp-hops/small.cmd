# testdata/traces/hops_small.ndjson, worked by hand: hosts h0, h2 -> switch
# s0 -> host h1; 1 Gb/s links with 1 us propagation, so a 1000-byte packet
# takes 8 + 1 = 9 us on each. h1's clock runs 5 us ahead: the offsets are
# estimated from the clock furthest ahead (h1 0, the rest -5000) and
# subtracted, so the times come out on h1's clock (5 us later).
#   h0->h1 id 7: 0.5 us in h0, 9 on the link, 2.5 in s0, 9, 0.8 in h1 =
#     21.8 us, complete, tied to rank 0's site 3, seq 12.
#   h2->h1 id 7 (the same id from another sender): 9.6 us queued in s0,
#     28.5 us in all; two of its tuples come out of order.
#   h0->h1 id 8: dropped in s0 (a drop tuple).
#   h0->h1 id 7 again at 100 us (the id reused): 19.1 us, complete.
#   h0->h1 id 9: last seen arriving at s0: dropped there.
#   h2->h1 id 10: s0 did not log it: one gap path, s0 a hop without times.
#   a tuple of an unknown device x9, a departure by h2's port 5 (no link),
#   and a tuple logged twice: counted.
# s0 holds 12.9 of the complete paths' 69.4 us (18.6%).
rp-hops testdata/traces/hops_small.ndjson
