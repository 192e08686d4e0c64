# A phase over two windows, tagged by another tool (no phase records):
# its paths run on over its second Barrier and are told once, when the
# next window shows it ended. k = 2. Phase 0: ranks compute 100 and 200
# to the first Barrier, which both leave with {200, 100}; then 10 and 150:
# {210, 110} and {350, 250}; the second Barrier keeps 350 and 110. Phase
# 1 (paths start afresh): 30 and 10. The whole run: after the second
# Barrier {350, 110}, + 30 and + 10: of 380, 360, 140, 120: 380 and 120.
rp-repr --no-passthrough -k 2 testdata/traces/repr_spanning_phase.ndjson
