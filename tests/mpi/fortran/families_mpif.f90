! A few MPI call families through the old Fortran interface (include
! 'mpif.h': no explicit interfaces, the same mpi_xxx_ entry points), on 4
! ranks, each call followed by what its trace record must say.
!
! Covered: Recv with MPI_ANY_SOURCE (resolved from the status, also with
! MPI_STATUS_IGNORE), Send, Barrier, Isend/Irecv + Waitall with statuses,
! Allreduce (plain and MPI_IN_PLACE), Comm_split + Allreduce on it +
! Comm_free, Finalize.
program families_mpif
  use expect_f
  implicit none
  include 'mpif.h'

  character(len=*), parameter :: WORLD4 = '"comm_ranks":[0,1,2,3]'
  integer :: ierr, rank, nprocs, left, right, k, src, n
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2)
  integer :: ibuf(16), ibuf2(16), got(3)
  double precision :: dvals(3), dsum(3)
  integer :: sub, subrank, color

  call MPI_Init(ierr)
  call rp_expect_init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call check(nprocs == 4, 'needs 4 ranks')
  left = mod(rank + 3, 4)
  right = mod(rank + 1, 4)
  ibuf = [(rank * 100 + k, k = 1, 16)]

  ! --- Send / Recv(MPI_ANY_SOURCE): rank 0 collects one message from each
  ! other rank in arrival order (rank r sends 2r integers with tag 200), then
  ! rank 2's second message (tag 201) with MPI_ANY_TAG and MPI_STATUS_IGNORE.
  if (rank == 0) then
    got = 0
    do k = 1, 3
      call MPI_Recv(ibuf2, 16, MPI_INTEGER, MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, status, ierr)
      src = status(MPI_SOURCE)
      call check(src >= 1 .and. src <= 3, 'Recv source')
      call MPI_Get_count(status, MPI_INTEGER, n, ierr)
      call check(n == 2 * src .and. ibuf2(1) == src * 100 + 1, 'Recv count')
      got(src) = got(src) + 1
      call expect('MPI_Recv', ptb(src, 200, 8 * src) // ',' // WORLD4)
    end do
    call check(all(got == 1), 'one message from each rank')
    call MPI_Recv(ibuf2, 16, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
    call expect('MPI_Recv', ptb(2, 201, 12))
    call check(ibuf2(3) == 203, 'Recv data')
  else
    call MPI_Send(ibuf, 2 * rank, MPI_INTEGER, 0, 200, MPI_COMM_WORLD, ierr)
    call expect('MPI_Send', ptb(0, 200, 8 * rank) // ',' // WORLD4)
    if (rank == 2) then
      call MPI_Send(ibuf, 3, MPI_INTEGER, 0, 201, MPI_COMM_WORLD, ierr)
      call expect('MPI_Send', ptb(0, 201, 12))
    end if
  end if
  ! Keeps the next messages (rank 3 sends to rank 0) from the wildcards.
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call expect('MPI_Barrier', WORLD4)

  ! --- Isend / Irecv + Waitall with statuses: the receive posted for 16
  ! integers gets rank + 1 of them from the left.
  call MPI_Irecv(ibuf2, 16, MPI_INTEGER, left, 210, MPI_COMM_WORLD, reqs(1), ierr)
  call expect('MPI_Irecv', ptb(left, 210, 64) // ',"has_req":true')
  call MPI_Isend(ibuf, rank + 1, MPI_INTEGER, right, 210, MPI_COMM_WORLD, reqs(2), ierr)
  call expect('MPI_Isend', ptb(right, 210, 4 * (rank + 1)) // ',"has_req":true')
  call MPI_Waitall(2, reqs, statuses, ierr)
  call expect('MPI_Waitall', '"ncompleted":2,"resolved":[' // triple(left, 210, 4 * (left + 1)) // ']')
  call check(statuses(MPI_SOURCE, 1) == left .and. statuses(MPI_TAG, 1) == 210, 'Waitall status')
  call check(ibuf2(left + 1) == left * 100 + left + 1, 'Irecv data')

  ! --- Allreduce: plain, then in place.
  dvals = [dble(rank), 1d0, 0.5d0]
  call MPI_Allreduce(dvals, dsum, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect('MPI_Allreduce', WORLD4 // ',"op":"MPI_SUM","bytes":24,"absent":["rbytes","root"]')
  call check(all(dsum == [6d0, 4d0, 2d0]), 'Allreduce result')
  call MPI_Allreduce(MPI_IN_PLACE, dvals, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call expect('MPI_Allreduce', WORLD4 // ',"op":"MPI_MAX","bytes":16')
  call check(dvals(1) == 3d0 .and. dvals(2) == 1d0, 'Allreduce in place')

  ! --- Comm_split into pairs {0,1} and {2,3}, a reduction on the pair, free.
  color = rank / 2
  call MPI_Comm_split(MPI_COMM_WORLD, color, rank, sub, ierr)
  call expect('MPI_Comm_split', WORLD4 // ',"newcomm_ranks":' // ranks([2 * color, 2 * color + 1]))
  call MPI_Comm_rank(sub, subrank, ierr)
  call check(subrank == mod(rank, 2), 'Comm_split order')
  call MPI_Allreduce(rank, n, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  call expect('MPI_Allreduce', '"comm_ranks":' // ranks([2 * color, 2 * color + 1]) // &
              ',"op":"MPI_SUM","bytes":4')
  call check(n == 4 * color + 1, 'Allreduce on the pair')
  call MPI_Comm_free(sub, ierr)
  call expect('MPI_Comm_free', '"comm_ranks":' // ranks([2 * color, 2 * color + 1]))
  call check(sub == MPI_COMM_NULL, 'Comm_free')

  call rp_expect_finalize()
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (*, '(A,I0,A,A)') 'families_mpif: rank ', rank, ': check failed: ', what
      call MPI_Abort(MPI_COMM_WORLD, 2, e)
    end if
  end subroutine check

end program families_mpif
