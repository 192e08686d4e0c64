! The MPI call families through the Fortran bindings (`use mpi`), on 4 ranks,
! each call followed by what its trace record must say. Ranks talk to their
! left, right and diagonal neighbours on the ring 0-1-2-3 and to their pair
! partner (0-1, 2-3); sizes depend on the sender's rank, so every resolved
! source, tag and size is known by construction.
!
! Covered: Send/Recv (statuses and MPI_STATUS_IGNORE), Isend/Irecv +
! Waitall(MPI_STATUSES_IGNORE), wildcard Irecv + Wait(MPI_STATUS_IGNORE),
! Waitany (1-based indices, then all null), Testsome loop, Probe, Iprobe
! loop, Sendrecv, Sendrecv_replace, persistent requests (Send_init,
! Recv_init, Startall, Start, Waitall, Request_free), Barrier, Bcast, Reduce,
! Allreduce(MPI_IN_PLACE), Gather (and MPI_IN_PLACE at the root), Alltoall,
! Ialltoall + Wait, Comm_split + messages on it + Comm_free, Comm_dup +
! Allreduce + Comm_free, Win_create/Win_fence/Put/Accumulate/Win_free,
! File_open/File_write_at/File_close, Pcontrol, Finalize.
program families_use_mpi
  use mpi
  use expect_f
  implicit none

  character(len=*), parameter :: WORLD4 = '"comm_ranks":[0,1,2,3]'
  integer :: ierr, rank, nprocs, left, right, diag, partner
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 3)
  integer :: req, reqs(3), preqs(2), idx, outcount, indices(3), done, k, it, n
  integer :: ibuf(20), ibuf2(20), ta(10), tb(10), tc(10), psend(4), precv(10)
  integer :: ivals(4), ired(3), gbuf(8), ia(8), ib(8), winbuf(4), origin(2)
  double precision :: dbuf(20), dsend(20), da(4), db(4)
  real :: rsend(10), rrecv(10)
  character(len=16) :: chars
  character(len=:), allocatable :: resolved
  logical :: flag
  integer :: sub, dup, color, subrank, members(2), win, fh, one
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  integer(kind=MPI_OFFSET_KIND) :: offset
  character(len=4096) :: dir
  integer :: dirlen, envstat

  call MPI_Init(ierr)
  call rp_expect_init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call check(nprocs == 4, 'needs 4 ranks')
  left = mod(rank + 3, 4)
  right = mod(rank + 1, 4)
  diag = mod(rank + 2, 4)
  partner = ieor(rank, 1)
  ibuf = [(rank * 100 + k, k = 1, 20)]
  dsend = [(dble(rank) + k / 10d0, k = 1, 20)]
  rsend = 1.5

  ! --- Send / Recv: blocking receives resolve peer, tag and bytes from the
  ! status, also when the application ignores it.
  if (mod(rank, 2) == 0) then
    call MPI_Send(ibuf, 10, MPI_INTEGER, partner, 11, MPI_COMM_WORLD, ierr)
    call expect('MPI_Send', ptb(partner, 11, 40) // ',' // WORLD4)
    call MPI_Recv(dbuf, 20, MPI_DOUBLE_PRECISION, partner, 12, MPI_COMM_WORLD, status, ierr)
    call expect('MPI_Recv', ptb(partner, 12, 24))
    chars = 'hello'
    call MPI_Send(chars, 5, MPI_CHARACTER, partner, 13 + rank, MPI_COMM_WORLD, ierr)
    call expect('MPI_Send', ptb(partner, 13 + rank, 5))
  else
    call MPI_Recv(ibuf2, 20, MPI_INTEGER, partner, 11, MPI_COMM_WORLD, status, ierr)
    call expect('MPI_Recv', ptb(partner, 11, 40) // ',' // WORLD4)
    call check(ibuf2(10) == partner * 100 + 10, 'Recv data')
    call MPI_Send(dsend, 3, MPI_DOUBLE_PRECISION, partner, 12, MPI_COMM_WORLD, ierr)
    call expect('MPI_Send', ptb(partner, 12, 24))
    call MPI_Recv(chars, 16, MPI_CHARACTER, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
    call expect('MPI_Recv', ptb(partner, 13 + partner, 5))
    call check(chars(1:5) == 'hello', 'Recv characters')
  end if

  ! --- Isend / Irecv + Waitall(MPI_STATUSES_IGNORE): exact postings resolve
  ! nothing; a short message is resolved even though statuses are ignored.
  call MPI_Irecv(dbuf, 8, MPI_DOUBLE_PRECISION, left, 21, MPI_COMM_WORLD, reqs(1), ierr)
  call expect('MPI_Irecv', ptb(left, 21, 64) // ',"has_req":true')
  call MPI_Isend(dsend, 8, MPI_DOUBLE_PRECISION, right, 21, MPI_COMM_WORLD, reqs(2), ierr)
  call expect('MPI_Isend', ptb(right, 21, 64) // ',"has_req":true')
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call expect('MPI_Waitall', '"ncompleted":2,"resolved":[]')
  call check(dbuf(8) == dble(left) + 0.8d0, 'Irecv data')

  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, right, 22, MPI_COMM_WORLD, reqs(1), ierr)
  call expect('MPI_Irecv', ptb(right, 22, 40) // ',"has_req":true')
  call MPI_Isend(ibuf, 4, MPI_INTEGER, left, 22, MPI_COMM_WORLD, reqs(2), ierr)
  call expect('MPI_Isend', ptb(left, 22, 16) // ',"has_req":true')
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call expect('MPI_Waitall', '"ncompleted":2,"resolved":[' // triple(right, 22, 16) // ']')

  ! --- Wildcard Irecv + Wait(MPI_STATUS_IGNORE): the posting says "any", the
  ! completion resolves who, which tag and how much. The barrier keeps later
  ! messages away from the wildcard.
  call MPI_Irecv(ibuf2, 16, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, req, ierr)
  call expect('MPI_Irecv', ptb(-1, MPI_ANY_TAG, 64) // ',"has_req":true')
  call MPI_Send(ibuf, rank + 1, MPI_INTEGER, right, 30 + rank, MPI_COMM_WORLD, ierr)
  call expect('MPI_Send', ptb(right, 30 + rank, 4 * (rank + 1)))
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call expect('MPI_Wait', '"ncompleted":1,"resolved":[' // triple(left, 30 + left, 4 * (left + 1)) // ']')
  call check(req == MPI_REQUEST_NULL, 'Wait frees the request')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call expect('MPI_Barrier', WORLD4)

  ! --- Waitany: Fortran indices are 1-based; the wrapper must complete the
  ! right request. A last call on null requests completes nothing.
  call MPI_Irecv(ia, 8, MPI_INTEGER, left, 41, MPI_COMM_WORLD, reqs(1), ierr)
  call expect('MPI_Irecv', ptb(left, 41, 32))
  call MPI_Irecv(ib, 8, MPI_INTEGER, right, 42, MPI_COMM_WORLD, reqs(2), ierr)
  call expect('MPI_Irecv', ptb(right, 42, 32))
  call MPI_Send(ibuf, 3, MPI_INTEGER, right, 41, MPI_COMM_WORLD, ierr)
  call expect('MPI_Send', ptb(right, 41, 12))
  call MPI_Send(ibuf, 5, MPI_INTEGER, left, 42, MPI_COMM_WORLD, ierr)
  call expect('MPI_Send', ptb(left, 42, 20))
  do k = 1, 2
    call MPI_Waitany(2, reqs, idx, status, ierr)
    if (idx == 1) then
      call check(status(MPI_SOURCE) == left .and. status(MPI_TAG) == 41, 'Waitany status 1')
      call expect('MPI_Waitany', '"ncompleted":1,"resolved":[' // triple(left, 41, 12) // ']')
    else
      call check(idx == 2 .and. status(MPI_SOURCE) == right, 'Waitany status 2')
      call expect('MPI_Waitany', '"ncompleted":1,"resolved":[' // triple(right, 42, 20) // ']')
    end if
  end do
  call MPI_Waitany(2, reqs, idx, status, ierr)
  call check(idx == MPI_UNDEFINED, 'Waitany on null requests')
  call expect('MPI_Waitany', '"ncompleted":0,"resolved":[]')

  ! --- Testsome in a loop: each call lists what it completed, in the order
  ! of the (1-based) indices it returned.
  call MPI_Irecv(ta, 10, MPI_INTEGER, left, 51, MPI_COMM_WORLD, reqs(1), ierr)
  call expect('MPI_Irecv', ptb(left, 51, 40))
  call MPI_Irecv(tb, 10, MPI_INTEGER, right, 52, MPI_COMM_WORLD, reqs(2), ierr)
  call expect('MPI_Irecv', ptb(right, 52, 40))
  call MPI_Irecv(tc, 10, MPI_INTEGER, diag, 53, MPI_COMM_WORLD, reqs(3), ierr)
  call expect('MPI_Irecv', ptb(diag, 53, 40))
  call MPI_Send(ibuf, 1, MPI_INTEGER, right, 51, MPI_COMM_WORLD, ierr)
  call expect('MPI_Send', ptb(right, 51, 4))
  call MPI_Send(ibuf, 2, MPI_INTEGER, left, 52, MPI_COMM_WORLD, ierr)
  call expect('MPI_Send', ptb(left, 52, 8))
  call MPI_Send(ibuf, 3, MPI_INTEGER, diag, 53, MPI_COMM_WORLD, ierr)
  call expect('MPI_Send', ptb(diag, 53, 12))
  done = 0
  do while (done < 3)
    call MPI_Testsome(3, reqs, outcount, indices, statuses, ierr)
    call check(outcount >= 0 .and. outcount <= 3 - done, 'Testsome outcount')
    resolved = ''
    do k = 1, outcount
      if (k > 1) resolved = resolved // ','
      select case (indices(k))
      case (1)
        resolved = resolved // triple(left, 51, 4)
      case (2)
        resolved = resolved // triple(right, 52, 8)
      case (3)
        resolved = resolved // triple(diag, 53, 12)
      case default
        call check(.false., 'Testsome index')
      end select
    end do
    call expect('MPI_Testsome', field('ncompleted', outcount) // ',"resolved":[' // resolved // ']')
    done = done + outcount
  end do

  ! --- Probe, then the receive it found.
  call MPI_Send(rsend, rank + 2, MPI_REAL, right, 60, MPI_COMM_WORLD, ierr)
  call expect('MPI_Send', ptb(right, 60, 4 * (rank + 2)))
  call MPI_Probe(MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, status, ierr)
  call expect('MPI_Probe', ptb(left, 60, 4 * (left + 2)))
  call MPI_Get_count(status, MPI_REAL, n, ierr)
  call check(n == left + 2, 'Probe count')
  call MPI_Recv(rrecv, 10, MPI_REAL, status(MPI_SOURCE), 60, MPI_COMM_WORLD, status, ierr)
  call expect('MPI_Recv', ptb(left, 60, 4 * (left + 2)))

  ! --- Iprobe until found: misses record the posted source and tag only.
  call MPI_Send(ibuf, 2, MPI_INTEGER, right, 70, MPI_COMM_WORLD, ierr)
  call expect('MPI_Send', ptb(right, 70, 8))
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, flag, status, ierr)
    if (flag) then
      call expect('MPI_Iprobe', ptb(left, 70, 8))
    else
      call expect('MPI_Iprobe', '"peer":-1,"tag":70,"absent":["bytes"]')
    end if
  end do
  call MPI_Recv(ibuf2, 2, MPI_INTEGER, left, 70, MPI_COMM_WORLD, status, ierr)
  call expect('MPI_Recv', ptb(left, 70, 8))

  ! --- Sendrecv (receive side from the status) and Sendrecv_replace.
  call MPI_Sendrecv(dsend, rank + 1, MPI_DOUBLE_PRECISION, right, 80, &
                    dbuf, 10, MPI_DOUBLE_PRECISION, left, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
  call expect('MPI_Sendrecv', ptb(right, 80, 8 * (rank + 1)) // ',' // field('rpeer', left) // &
              ',"rtag":80,' // field('rbytes', 8 * (left + 1)))
  ibuf2(1:3) = rank
  call MPI_Sendrecv_replace(ibuf2, 3, MPI_INTEGER, left, 81, right, 81, MPI_COMM_WORLD, status, ierr)
  call expect('MPI_Sendrecv_replace', ptb(left, 81, 12) // ',' // field('rpeer', right) // &
              ',"rtag":81,"rbytes":12')
  call check(ibuf2(3) == right, 'Sendrecv_replace data')

  ! --- Persistent requests: created once, started twice (Startall, then
  ! Start), completed by Waitall each time, then freed.
  psend = rank
  call MPI_Send_init(psend, 4, MPI_INTEGER, right, 90, MPI_COMM_WORLD, preqs(1), ierr)
  call expect('MPI_Send_init', ptb(right, 90, 16) // ',"has_req":true')
  call MPI_Recv_init(precv, 10, MPI_INTEGER, left, 90, MPI_COMM_WORLD, preqs(2), ierr)
  call expect('MPI_Recv_init', ptb(left, 90, 40) // ',"has_req":true')
  do it = 1, 2
    if (it == 1) then
      call MPI_Startall(2, preqs, ierr)
      call expect('MPI_Startall', '"absent":["peer","req"]')
    else
      call MPI_Start(preqs(1), ierr)
      call expect('MPI_Start', '"has_req":true')
      call MPI_Start(preqs(2), ierr)
      call expect('MPI_Start', '"has_req":true')
    end if
    call MPI_Waitall(2, preqs, statuses, ierr)
    call expect('MPI_Waitall', '"ncompleted":2,"resolved":[' // triple(left, 90, 16) // ']')
    call check(precv(4) == left, 'persistent data')
  end do
  call MPI_Request_free(preqs(1), ierr)
  call expect('MPI_Request_free', '"has_req":true')
  call MPI_Request_free(preqs(2), ierr)
  call expect('MPI_Request_free', '"has_req":true')

  ! --- Collectives: bytes is this rank's send buffer, rbytes its receive
  ! buffer; roots are world ranks.
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call expect('MPI_Barrier', WORLD4 // ',"absent":["bytes","rbytes"]')
  call MPI_Bcast(dbuf, 5, MPI_DOUBLE_PRECISION, 1, MPI_COMM_WORLD, ierr)
  call expect('MPI_Bcast', WORLD4 // ',"root":1,"bytes":40,"absent":["rbytes"]')
  ibuf2(1:3) = [1, rank, 10 * rank]
  call MPI_Reduce(ibuf2, ired, 3, MPI_INTEGER, MPI_SUM, 2, MPI_COMM_WORLD, ierr)
  call expect('MPI_Reduce', WORLD4 // ',"root":2,"op":"MPI_SUM","bytes":12,"absent":["rbytes"]')
  if (rank == 2) call check(all(ired == [4, 6, 60]), 'Reduce result')
  ivals = [rank, 1, 2, 3]
  call MPI_Allreduce(MPI_IN_PLACE, ivals, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect('MPI_Allreduce', WORLD4 // ',"op":"MPI_SUM","bytes":16')
  call check(all(ivals == [6, 4, 8, 12]), 'Allreduce in place')
  ibuf2(1:2) = [rank, -rank]
  call MPI_Gather(ibuf2, 2, MPI_INTEGER, gbuf, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call expect('MPI_Gather', WORLD4 // ',"root":0,"bytes":8,' // field('rbytes', merge(32, 0, rank == 0)))
  if (rank == 0) call check(all(gbuf == [0, 0, 1, -1, 2, -2, 3, -3]), 'Gather result')
  ! MPI_IN_PLACE at the root: its contribution is its recvcount.
  if (rank == 3) then
    gbuf(7:8) = [3, -3]
    call MPI_Gather(MPI_IN_PLACE, 0, MPI_INTEGER, gbuf, 2, MPI_INTEGER, 3, MPI_COMM_WORLD, ierr)
    call check(all(gbuf == [0, 0, 1, -1, 2, -2, 3, -3]), 'Gather in place')
  else
    call MPI_Gather(ibuf2, 2, MPI_INTEGER, gbuf, 2, MPI_INTEGER, 3, MPI_COMM_WORLD, ierr)
  end if
  call expect('MPI_Gather', WORLD4 // ',"root":3,"bytes":8,' // field('rbytes', merge(32, 0, rank == 3)))
  da = [(10d0 * rank + k, k = 0, 3)]
  call MPI_Alltoall(da, 1, MPI_DOUBLE_PRECISION, db, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call expect('MPI_Alltoall', WORLD4 // ',"bytes":32,"rbytes":32')
  call check(db(1) == rank .and. db(4) == 30d0 + rank, 'Alltoall result')
  ia = [(100 * rank + k, k = 0, 7)]
  call MPI_Ialltoall(ia, 2, MPI_INTEGER, ib, 2, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call expect('MPI_Ialltoall', WORLD4 // ',"bytes":32,"rbytes":32,"has_req":true')
  call MPI_Wait(req, status, ierr)
  call expect('MPI_Wait', '"ncompleted":1,"resolved":[]')
  call check(ib(7) == 300 + 2 * rank, 'Ialltoall result')

  ! --- Communicators: split (even/odd, reversed order), a message on it with
  ! comm ranks turned into world ranks, free; dup, a reduction on it, free.
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, -rank, sub, ierr)
  members = [color + 2, color]
  call expect('MPI_Comm_split', WORLD4 // ',"newcomm_ranks":' // ranks(members))
  call MPI_Comm_rank(sub, subrank, ierr)
  call check(subrank == 1 - rank / 2, 'Comm_split order')
  if (subrank == 0) then
    call MPI_Send(ibuf, 6, MPI_INTEGER, 1, 110, sub, ierr)
    call expect('MPI_Send', ptb(members(2), 110, 24) // ',"comm_ranks":' // ranks(members))
  else
    call MPI_Recv(ibuf2, 10, MPI_INTEGER, MPI_ANY_SOURCE, 110, sub, status, ierr)
    call check(status(MPI_SOURCE) == 0, 'sub-communicator source')
    call expect('MPI_Recv', ptb(members(1), 110, 24) // ',"comm_ranks":' // ranks(members))
  end if
  call MPI_Comm_free(sub, ierr)
  call expect('MPI_Comm_free', '"comm_ranks":' // ranks(members))
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call expect('MPI_Comm_dup', WORLD4 // ',"newcomm_ranks":[0,1,2,3]')
  call MPI_Allreduce(rank, n, 1, MPI_INTEGER, MPI_MAX, dup, ierr)
  call expect('MPI_Allreduce', WORLD4 // ',"op":"MPI_MAX","bytes":4')
  call check(n == 3, 'Allreduce max')
  call MPI_Comm_free(dup, ierr)
  call expect('MPI_Comm_free', WORLD4)

  ! --- One-sided: targets are world ranks of the window's group.
  winbuf = -1
  winsize = 4 * 4
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call expect('MPI_Win_create', WORLD4 // ',"bytes":16')
  call MPI_Win_fence(0, win, ierr)
  call expect('MPI_Win_fence', '')
  origin = [rank, 2 * rank]
  disp = 0
  call MPI_Put(origin, 2, MPI_INTEGER, right, disp, 2, MPI_INTEGER, win, ierr)
  call expect('MPI_Put', field('peer', right) // ',"bytes":8')
  one = 1
  disp = 3
  call MPI_Accumulate(one, 1, MPI_INTEGER, diag, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call expect('MPI_Accumulate', field('peer', diag) // ',"bytes":4,"op":"MPI_SUM"')
  call MPI_Win_fence(0, win, ierr)
  call expect('MPI_Win_fence', '')
  call check(winbuf(1) == left .and. winbuf(2) == 2 * left .and. winbuf(4) == 0, 'Put result')
  call MPI_Win_free(win, ierr)
  call expect('MPI_Win_free', '')

  ! --- MPI-IO: each rank writes 10 integers at its own offset.
  call get_environment_variable('RP_EXPECT_DIR', dir, dirlen, envstat)
  if (envstat /= 0 .or. dirlen == 0) dir = '.'
  call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/families_use_mpi.dat', &
                     MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_open')
  call expect('MPI_File_open', WORLD4)
  offset = 40 * rank
  call MPI_File_write_at(fh, offset, ibuf, 10, MPI_INTEGER, status, ierr)
  call expect('MPI_File_write_at', field('offset', 40 * rank) // ',"bytes":40')
  call MPI_File_close(fh, ierr)
  call expect('MPI_File_close', '')

  ! --- Pcontrol: the level is recorded as the tag.
  call MPI_Pcontrol(2)
  call expect('MPI_Pcontrol', '"tag":2')
  call MPI_Pcontrol(0)
  call expect('MPI_Pcontrol', '"tag":0')

  call rp_expect_finalize()
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (*, '(A,I0,A,A)') 'families_use_mpi: rank ', rank, ': check failed: ', what
      call MPI_Abort(MPI_COMM_WORLD, 2, e)
    end if
  end subroutine check

end program families_use_mpi
