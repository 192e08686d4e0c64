# A comm member beyond any run's size (2^32) would size an array per rank
# of the communicator: an input error naming the line.
rp-phases testdata/bad/comm_member_out_of_range.ndjson
