# testdata/traces/diagnose_comm.ndjson (2 ranks, 8,990 ns, two phases),
# worked by hand. A site's calls save the what-if of their taking no
# time (rp-diagnose runs the critical path: rp-cpath did not):
# - frequent communication (phase 0): rank 0's 30 MPI_Iprobe at comm.c:20
#   each find a message, 20 ns each (short, 15 per rank): 600 ns on the
#   path; without them rank 1's path takes over 70 sooner: 530;
# - large messages: rank 0's MPI_Send of 1 MiB in 500 ns: 250; rank 1's
#   MPI_Wait completing it (3,070 to 3,620, 30 of it waiting for the send
#   to start): 520 / 2 = 260. Large messages keep the average: a transfer
#   holds both ends, and one end's what-if leaves the other on the path;
# - polling (phase 1): rank 1's 30 MPI_Iprobe at comm.c:10 find nothing,
#   30 ns each, all on the path: 900;
# - serial I/O: rank 1's MPI_File_write, 400 ns, on rank 1 alone: spread
#   over both ranks it would take 200 on each: 400 - 200 = 200 (at most
#   its what-if, 400);
# - serialisation at phase 1's Barrier: rank 0 waits 3,600 for rank 1
#   (avg - min 1,800, the bound); its cause poll (rank 1's 30 x 70 ns
#   between probes, plus 30 before the first: 2,130, none on rank 0; without
#   samples a computation is the function of the call ending it). Balanced,
#   each rank computes 1,065 of it: rank 1 reaches the Barrier 1,065
#   sooner, rank 0 still earlier: the what-if saves 1,065;
# - phase 0's Barrier: rank 1 waits 500 for rank 0 (symptom 250), but its
#   first cause, exchange (rank 1's 3,040 before its Irecv), balanced would
#   make rank 0 later still: the what-if saves nothing, so no imbalance is
#   reported; the path's computation before that Barrier (600, an average
#   rank 340) is a critical computation of 260 instead;
# - the Barriers' own 100 ns lie on the path (communication on path).
rp-phases testdata/traces/diagnose_comm.ndjson | rp-diagnose --format text
