/* What a test MPI application expects the trace to say, written by the
 * application itself as it makes each call: the answer known by
 * construction. One NDJSON line per MPI call, in call order, to
 * $RP_EXPECT_DIR/expect-<rank>.ndjson; tests/mpi/check_trace.py compares
 * them with the trace's mpi records of that rank, one for one.
 *
 *   MPI_Init(&argc, &argv);
 *   rp_expect_init();                       // also expects the MPI_Init
 *   MPI_Send(buf, 10, MPI_INT, 1, 7, MPI_COMM_WORLD);
 *   rp_expect("MPI_Send", "\"peer\":1,\"tag\":7,\"bytes\":40");
 *   rp_expect_finalize();                   // expects the MPI_Finalize
 *   MPI_Finalize();
 *
 * Fields the checker understands: any mpi record field (peer, tag, bytes,
 * rpeer, rtag, rbytes, root, op, ...) compared for equality, and
 *   "comm_ranks":[world ranks]      the communicator's members
 *   "newcomm_ranks":[world ranks]   the created communicator's members
 *   "ncompleted":N                  number of requests completed
 *   "resolved":[[peer,tag,bytes]]   resolved receive statuses, in order
 *   "has_req":true|false            whether the call names a request
 *   "absent":["field", ...]         fields that must not be there
 * Fortran programs call the same functions through bind(C).
 */
#ifndef RP_TESTS_MPI_EXPECT_H_
#define RP_TESTS_MPI_EXPECT_H_

#ifdef __cplusplus
extern "C" {
#endif

void rp_expect_init(void);
/* For applications started otherwise, e.g. rp_expect_init_as("MPI_Init_thread"). */
void rp_expect_init_as(const char* init_fn);
void rp_expect(const char* fn, const char* fields, ...) __attribute__((format(printf, 2, 3)));
void rp_expect_finalize(void);

#ifdef __cplusplus
}
#endif

#endif /* RP_TESTS_MPI_EXPECT_H_ */
