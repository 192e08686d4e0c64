! Fortran access to the expectation API of tests/mpi/expect.h: what a test
! application expects the trace to say, one line per wrapped MPI call, in
! call order, right after the call.
!
!   call MPI_Init(ierr)
!   call rp_expect_init()                 ! also expects the MPI_Init
!   call MPI_Send(buf, 10, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
!   call expect('MPI_Send', ptb(1, 7, 40))
!   call rp_expect_finalize()             ! expects the MPI_Finalize
!   call MPI_Finalize(ierr)
!
! Fields are written as JSON members without braces, as in C:
! '"peer":1,"tag":7,"bytes":40'. The helpers below build the common ones.
module expect_f
  use, intrinsic :: iso_c_binding, only: c_char, c_null_char
  implicit none
  private
  public :: rp_expect_init, rp_expect_finalize, expect, str, ptb, field, ranks, triple

  interface
    subroutine rp_expect_init() bind(C, name="rp_expect_init")
    end subroutine rp_expect_init

    subroutine rp_expect_finalize() bind(C, name="rp_expect_finalize")
    end subroutine rp_expect_finalize

    subroutine rp_expect_c(fn, fields) bind(C, name="rp_expect_f")
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: fn
      character(kind=c_char), dimension(*), intent(in) :: fields
    end subroutine rp_expect_c
  end interface

contains

  ! Expects `fn` with `fields` (JSON members, '' for none).
  subroutine expect(fn, fields)
    character(len=*), intent(in) :: fn, fields
    call rp_expect_c(fn // c_null_char, fields // c_null_char)
  end subroutine expect

  ! An integer as text.
  function str(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    character(len=32) :: buf
    write (buf, '(I0)') i
    s = trim(buf)
  end function str

  ! '"name":value'
  function field(name, value) result(s)
    character(len=*), intent(in) :: name
    integer, intent(in) :: value
    character(len=:), allocatable :: s
    s = '"' // name // '":' // str(value)
  end function field

  ! '"peer":p,"tag":t,"bytes":b'
  function ptb(peer, tag, bytes) result(s)
    integer, intent(in) :: peer, tag, bytes
    character(len=:), allocatable :: s
    s = field('peer', peer) // ',' // field('tag', tag) // ',' // field('bytes', bytes)
  end function ptb

  ! '[a,b,...]' (world ranks, or any list of integers)
  function ranks(list) result(s)
    integer, intent(in) :: list(:)
    character(len=:), allocatable :: s
    integer :: i
    s = '['
    do i = 1, size(list)
      if (i > 1) s = s // ','
      s = s // str(list(i))
    end do
    s = s // ']'
  end function ranks

  ! '[peer,tag,bytes]': one "resolved" entry.
  function triple(peer, tag, bytes) result(s)
    integer, intent(in) :: peer, tag, bytes
    character(len=:), allocatable :: s
    s = ranks([peer, tag, bytes])
  end function triple

end module expect_f
