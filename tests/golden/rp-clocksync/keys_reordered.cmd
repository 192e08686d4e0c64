# testdata/traces/keys_reordered.ndjson: rank 1's Recv has "t1" before
# "t0" (valid JSON, keys in any order). No clock records: times stay as
# they are. The Recv ends at 200, before the Send starts at 1000: its end
# moves to 1000 (+800), a jump the amortisation ramps in at --max-slope
# 0.01 over 80000 ns from -79800: at t0 = 100 the ramp is
# floor(800 * 79900 / 80000) = 799, so t0 becomes 899 (the 799 the ramp has
# not reached lies before rank 1's first event). Both values are rewritten
# where they lie.
rp-clocksync --report testdata/traces/keys_reordered.ndjson
