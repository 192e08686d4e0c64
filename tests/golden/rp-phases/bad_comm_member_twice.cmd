# A comm record listing rank 0 twice has 3 entries in a 3-rank run: it
# would pass for one spanning the world, and its barrier would cut a phase.
# An input error naming the line.
rp-phases testdata/bad/comm_member_twice.ndjson
