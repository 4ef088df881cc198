! sgemm_demo - an ordinary Fortran program that calls SGEMM and DGEMM.
!
! It knows nothing of dlgemm: it is linked with -lblas.  Run it plain, then
! with LD_PRELOAD=libdlgemm.so DLGEMM_VERBOSE=1 to see dlgemm take each call.
! It checks its own answer against a straightforward triple loop in double
! precision, so it fails loudly if whichever BLAS answered got it wrong.
program sgemm_demo
  implicit none
  integer, parameter :: sizes(4) = (/ 64, 257, 512, 1031 /)
  integer :: t, n, i, j, l
  real, allocatable :: a(:,:), b(:,:), c(:,:)
  double precision, allocatable :: da(:,:), db(:,:), dc(:,:)
  double precision :: err, ref, scale
  logical :: ok
  character(len=1), parameter :: tr(2) = (/ 'N', 'T' /)

  ok = .true.
  do t = 1, size(sizes)
    n = sizes(t)
    allocate(a(n,n), b(n,n), c(n,n))
    call random_number(a)
    call random_number(b)
    a = a - 0.5
    b = b - 0.5
    c = 1.0
    call sgemm(tr(mod(t,2)+1), 'N', n, n, n, 1.5, a, n, b, n, 0.5, c, n)
    err = 0d0
    scale = 0d0
    do j = 1, n, max(1, n/16)
      do i = 1, n, max(1, n/16)
        ref = 0.5d0
        do l = 1, n
          if (tr(mod(t,2)+1) == 'N') then
            ref = ref + 1.5d0 * dble(a(i,l)) * dble(b(l,j))
          else
            ref = ref + 1.5d0 * dble(a(l,i)) * dble(b(l,j))
          end if
        end do
        err = max(err, abs(ref - dble(c(i,j))))
        scale = max(scale, abs(ref))
      end do
    end do
    write(*,'(a,i5,a,a1,a,es9.2)') ' SGEMM n=', n, ' trans=', tr(mod(t,2)+1), &
         '  max error/scale =', err / max(scale, 1d-30)
    if (err / max(scale, 1d-30) > 1d-4 * sqrt(dble(n))) ok = .false.
    deallocate(a, b, c)
  end do

  n = 300
  allocate(da(n,n), db(n,n), dc(n,n))
  call random_number(da)
  call random_number(db)
  call dgemm('N', 'T', n, n, n, 1d0, da, n, db, n, 0d0, dc, n)
  ref = sum(da(7,:) * db(11,:))
  write(*,'(a,i5,a,es9.2)') ' DGEMM n=', n, '  error at (7,11) =', abs(ref - dc(7,11))
  if (abs(ref - dc(7,11)) > 1d-12 * n) ok = .false.

  if (ok) then
    write(*,'(a)') ' sgemm_demo: all products correct'
  else
    write(*,'(a)') ' sgemm_demo: WRONG RESULT'
    error stop 1
  end if
end program sgemm_demo
