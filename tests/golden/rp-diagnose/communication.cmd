# testdata/traces/diagnose_comm.ndjson (2 ranks, 8,990 ns, two phases),
# worked by hand. Each saving is the calls' own time averaged over the 2
# ranks, or the what-if of their taking no time if that is less:
# - frequent communication (phase 0): rank 0's 30 MPI_Iprobe at comm.c:20
#   each find a message, 20 ns each (short, 15 per rank): 600 / 2 = 300
#   (what-if 530);
# - large messages: rank 0's MPI_Send of 1 MiB in 500 ns: 250 (what-if 500);
# - polling (phase 1): rank 1's 30 MPI_Iprobe at comm.c:10 find nothing,
#   30 ns each: 450 (what-if 900);
# - serial I/O: rank 1's MPI_File_write, 400 ns, on rank 1 alone: 200;
# - serialisation at each phase's Barrier: rank 0 waits 3,600 for rank 1
#   in phase 1 (avg - min 1,800), rank 1 500 in phase 0 (250); without
#   samples the computation before each call is its function's;
# - the Barriers' own 100 ns lie on the path (communication on path).
rp-phases testdata/traces/diagnose_comm.ndjson | rp-diagnose --format text
