!> The Fortran module (fortran/ovkrylov.f90), run at 1-4 ranks on a 1-D
!> Laplacian split unevenly (rank 1 owns no rows from 3 ranks on):
!>   - 1-based default-integer CSR and 0-based 64-bit CSR give the same
!>     matrix: same iterations, bitwise the same solution, by arrays, owned
!>     vectors and wrapped arrays; the true residual is below tol;
!>   - options: set by create's optional arguments, by name (text, integer,
!>     real), read back;
!>   - the monitor: called at iterations 0..5, stops at 5 -> OVK_ESTOPPED,
!>     reason OVK_REASON_MONITOR; removed, the next solve converges;
!>   - value updates (2A: the same iterations, x / 2), another pattern;
!>   - bad input, each the same status on every rank with its message: an
!>     unknown solver name, an unknown option, a bad value, solve before
!>     setup, rowptr past the end of cols on one rank, a column out of
!>     range, base 2, arrays of the wrong size on one rank.
!> With the argument "abort": a failing call without ierr, which must print
!> the message and abort (checked by run.sh).
module ftest_support
    use, intrinsic :: iso_fortran_env, only: error_unit, real64
    implicit none
    integer :: failures = 0  !< checks failed on this rank
    integer :: calls = 0     !< monitor calls
    integer :: last_iteration = -1
    integer :: my_rank = 0

contains

    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok) then
            failures = failures + 1
            write (error_unit, '(a,i0,a)') 'FAIL (rank ', my_rank, '): '//what
        end if
    end subroutine check

    !> Counts its calls and stops the solve at iteration 5.
    logical function stop_at_5(iteration, rnorm, rel)
        integer, intent(in) :: iteration
        real(real64), intent(in) :: rnorm, rel
        calls = calls + 1
        last_iteration = iteration
        call check(rnorm >= 0 .and. rel >= 0, 'monitor: residuals are not negative')
        stop_at_5 = iteration >= 5
    end function stop_at_5

end module ftest_support

program test_fortran
    use, intrinsic :: iso_fortran_env, only: int32, int64, real64
    use mpi_f08
    use ovkrylov
    use ftest_support
    implicit none

    integer, parameter :: N = 60 ! global rows

    call MPI_Init()
    call run_tests()
    call MPI_Finalize()
    if (failures /= 0) stop 1, quiet = .true.

contains

    !> Every check; the objects and arrays are local (freed on return).
    subroutine run_tests()
        integer :: rank, nranks, nlocal, first, ierr, total, i, cmp
        integer, allocatable :: counts(:), rowptr(:), rowptr0(:)
        integer(int32), allocatable :: cols(:)
        integer(int64), allocatable :: cols0(:)
        real(real64), allocatable :: vals(:), b(:), x1(:), x2(:), r(:), xyz(:, :)
        real(real64), allocatable, target :: xw(:), bw(:)
        real(real64), pointer :: p(:)
        character(len=:), allocatable :: text, arg
        character(len=96) :: msg
        type(ovk_matrix) :: A1, A0, Abad
        type(ovk_solver) :: s, s2
        type(ovk_vector) :: vb, vx, vw, vbw, vy
        type(ovk_pcg_result) :: res, res2
        real(real64) :: tolread, rr, bb

        call MPI_Comm_rank(MPI_COMM_WORLD, rank)
        call MPI_Comm_size(MPI_COMM_WORLD, nranks)
        my_rank = rank

        ! uneven rows: rank 1 owns none from 3 ranks on
        allocate (counts(0:nranks - 1))
        counts = 1
        if (nranks >= 3) counts(1) = 0
        total = sum(counts)
        counts = counts * (N / total)
        do i = 0, nranks - 1
            if (counts(i) > 0 .and. sum(counts) < N) counts(i) = counts(i) + 1
        end do
        counts(0) = counts(0) + (N - sum(counts))
        nlocal = counts(rank)
        first = sum(counts(0:rank - 1)) + 1 ! 1-based
        call laplace1d(first, nlocal, rowptr, cols, vals)

        if (command_argument_count() >= 1) then
            call get_command_argument(1, length=i)
            allocate (character(len=i) :: arg)
            call get_command_argument(1, arg)
            if (arg == 'abort') call abort_without_ierr(first, rowptr, cols, vals)
        end if

        ! ---- the same matrix, 1-based default integers and 0-based int64 ----
        call ovk_matrix_create_csr(MPI_COMM_WORLD, first, rowptr, cols, vals, A1, ierr)
        call check(ierr == OVK_OK, '1-based create: '//ovk_error_detail())
        rowptr0 = rowptr - 1
        cols0 = int(cols, int64) - 1
        call ovk_matrix_create_csr(MPI_COMM_WORLD, int(first - 1, int64), rowptr0, cols0, vals, A0, ierr, base=0, &
            dups=OVK_DUP_REJECT)
        call check(ierr == OVK_OK, '0-based create: '//ovk_error_detail())
        call check(ovk_matrix_nglobal(A1) == N .and. ovk_matrix_nlocal(A1) == nlocal, 'layout queries')
        call check(ovk_matrix_row_start(A1) == first .and. ovk_matrix_row_start(A0, base=0) == first - 1, &
            'row_start 1-based and 0-based')
        call MPI_Comm_compare(ovk_matrix_comm(A1), MPI_COMM_WORLD, cmp)
        call check(cmp == MPI_CONGRUENT, 'the matrix keeps a duplicate of the communicator')

        ! ---- options ----
        call ovk_solver_create(A1, s, ierr, solver='cg1', tol=1d-10, max_iter=400)
        call check(ierr == OVK_OK, 'create with options: '//ovk_error_detail())
        call ovk_solver_get_option(s, 'solver', text, ierr)
        call check(ierr == OVK_OK .and. text == 'cg1', 'get_option solver = cg1')
        call ovk_solver_get_option(s, 'tol', text, ierr)
        read (text, *) tolread
        call check(tolread == 1d-10, 'the tolerance exactly as given ('//text//')')
        call ovk_solver_set_option(s, 'max_iter', 500, ierr)
        call ovk_solver_get_option(s, 'max_iter', text)
        call check(ierr == OVK_OK .and. text == '500', 'integer option')
        call ovk_solver_set_option(s, 'atol', 0d0, ierr)
        call check(ierr == OVK_OK, 'real option')
        call ovk_solver_set_options(s, ierr, solver='alg1', precond='jacobi', tol=1d-10)
        call check(ierr == OVK_OK, 'set_options')
        call check(ovk_solver_nlocal(s) == nlocal, 'solver nlocal')
        call MPI_Comm_compare(ovk_solver_comm(s), MPI_COMM_WORLD, cmp)
        call check(cmp == MPI_CONGRUENT, 'solver communicator')
        ! coordinates: dim 4 refused, dim 3 with one point per row taken (jacobi ignores them)
        allocate (xyz(4, nlocal))
        xyz = 0
        call ovk_solver_set_coordinates(s, xyz, ierr)
        call check(ierr == OVK_EINVAL, 'coordinates of dimension 4: OVK_EINVAL')
        call ovk_solver_set_coordinates(s, xyz(1:3, :), ierr)
        call check(ierr == OVK_OK, 'coordinates of dimension 3: '//ovk_error_detail())

        ! ---- solve before setup ----
        allocate (b(nlocal), x1(nlocal), x2(nlocal), r(nlocal))
        b = 1
        x1 = 0
        call ovk_solver_solve(s, b, x1, res, ierr)
        call check(ierr == OVK_OK, 'solve before setup: the solve sets up')
        x1 = 0

        ! ---- solve with arrays; the true residual ----
        call ovk_solver_setup(s, ierr)
        call check(ierr == OVK_OK, 'setup: '//ovk_error_detail())
        call ovk_solver_solve(s, b, x1, res, ierr)
        call check(ierr == OVK_OK .and. res%reason == OVK_REASON_CONVERGED .and. res%iterations > 5, &
            'arrays: converged')
        call check(res%rel_residual < 1d-10 .and. res%time_max(OVK_TIMER_SOLVE) > 0, 'arrays: result fields')
        call check(ovk_reason_name(res%reason) /= '', 'reason name')
        call ovk_vector_create(A1, vx, ierr)
        call ovk_vector_create(A1, vy, ierr)
        p => ovk_vector_data(vx)
        call check(size(p) == nlocal .and. ovk_vector_nlocal(vx) == nlocal, 'vector data size')
        p = x1
        call ovk_matvec(A1, vx, vy, ierr)
        call check(ierr == OVK_OK, 'matvec')
        r = b - ovk_vector_data(vy)
        call MPI_Allreduce(dot_product(r, r), rr, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
        call MPI_Allreduce(dot_product(b, b), bb, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
        call check(sqrt(rr / bb) < 1d-9, 'the true residual is small')
        call ovk_vector_destroy(vx)
        call ovk_vector_destroy(vy)

        ! ---- the 0-based matrix, owned vectors: bitwise the same ----
        call ovk_solver_create(A0, s2, ierr, solver='alg1', tol=1d-10, max_iter=500)
        call ovk_solver_setup(s2, ierr)
        call ovk_vector_create(s2, vb, ierr)
        call ovk_vector_create(A0, vx, ierr)
        p => ovk_vector_data(vb)
        p = 1
        call ovk_solver_solve(s2, vb, vx, res2, ierr)
        call check(ierr == OVK_OK .and. res2%iterations == res%iterations, '0-based int64: same iterations')
        call check(all(ovk_vector_data(vx) == x1), '0-based int64: the same solution')
        call ovk_vector_destroy(vb)
        call ovk_vector_destroy(vx)

        ! ---- wrapped arrays ----
        allocate (xw(nlocal), bw(nlocal))
        xw = 0
        bw = 1
        call ovk_vector_wrap(s2, xw, vw, ierr)
        call check(ierr == OVK_OK, 'wrap x')
        call ovk_vector_wrap(s2, bw, vbw, ierr)
        call ovk_solver_solve(s2, vbw, vw, res2, ierr)
        call check(ierr == OVK_OK .and. all(xw == x1), 'wrapped arrays: the solution in place')
        call ovk_vector_destroy(vw)
        call ovk_vector_destroy(vbw)
        call ovk_vector_wrap(s2, x2(1:0), vw, ierr)
        call check(ierr == merge(OVK_OK, OVK_EINVAL, nlocal == 0), 'wrap: an array of the wrong size')
        call ovk_vector_destroy(vw)

        ! ---- the monitor ----
        call ovk_solver_set_monitor(s, stop_at_5, ierr)
        call check(ierr == OVK_OK, 'set_monitor')
        x2 = 0
        call ovk_solver_solve(s, b, x2, res2, ierr) ! a new monitor: the solve sets up
        call check(ierr == OVK_ESTOPPED, 'monitor stop: OVK_ESTOPPED ('//ovk_status_name(ierr)//')')
        ! the stop request rides the next reduction: alg1 stops one iteration later
        call check(res2%reason == OVK_REASON_MONITOR .and. res2%iterations == 6, 'monitor stop: reason, 6 iterations')
        call check(calls == 7 .and. last_iteration == 6, 'monitor called at iterations 0..6')
        call ovk_solver_set_monitor(s, ierr=ierr)
        call ovk_solver_setup(s, ierr)
        x2 = 0
        call ovk_solver_solve(s, b, x2, res2, ierr)
        call check(ierr == OVK_OK .and. calls == 7 .and. all(x2 == x1), 'monitor removed')

        ! ---- new values: 2A ----
        call ovk_matrix_update_values(A1, rowptr, cols, 2 * vals, ierr)
        call check(ierr == OVK_OK, 'update_values: '//ovk_error_detail())
        x2 = 0
        call ovk_solver_solve(s, b, x2, res2, ierr)
        call check(ierr == OVK_OK .and. res2%iterations == res%iterations .and. all(2 * x2 == x1), '2A: x / 2')
        if (nlocal > 0) then
            call ovk_matrix_update_values(A1, rowptr, cols(size(cols):1:-1), vals, ierr)
        else
            call ovk_matrix_update_values(A1, rowptr, cols, vals, ierr)
        end if
        call check(ierr == merge(OVK_EMISMATCH, OVK_OK, N > 1), 'update_values: another pattern ('// &
            ovk_status_name(ierr)//')')

        ! ---- bad input ----
        call ovk_solver_set_option(s2, 'solver', 'nosuch', ierr)
        call check(ierr == OVK_OK, 'names are checked at setup')
        call ovk_solver_setup(s2, ierr)
        call check(ierr == OVK_EOPTION, 'unknown solver: OVK_EOPTION on every rank')
        call check(index(ovk_error_detail(), "unknown solver 'nosuch'") > 0, 'unknown solver: '//ovk_error_detail())
        call check(ovk_strerror(ierr) == 'unknown option or bad option value', 'strerror')
        call check(ovk_status_name(ierr) == 'OVK_EOPTION', 'status name')
        call ovk_solver_set_option(s2, 'bogus', '1', ierr)
        call check(ierr == OVK_EOPTION, 'unknown option: OVK_EOPTION')
        call check(index(ovk_error_detail(), 'bogus') > 0, 'unknown option: '//ovk_error_detail())
        call ovk_solver_destroy(s2)
        if (rank == 0) then ! a bad tolerance on one rank: kept, and setup says so everywhere
            call ovk_solver_create(A1, s2, ierr, tol=-1d0)
            call check(ierr == OVK_EOPTION, 'create with a bad tolerance: OVK_EOPTION')
        else
            call ovk_solver_create(A1, s2, ierr, tol=1d-8)
            call check(ierr == OVK_OK, 'create with a good tolerance')
        end if
        call check(ovk_solver_nlocal(s2) == nlocal, 'a refused option keeps the solver')
        call ovk_solver_setup(s2, ierr)
        call check(ierr == OVK_EOPTION, 'setup after a refused tol on rank 0: OVK_EOPTION everywhere ('// &
            ovk_status_name(ierr)//')')
        call check(index(ovk_error_detail(), 'tol') > 0, 'refused tol: '//ovk_error_detail())
        if (rank == 0) call ovk_solver_set_option(s2, 'tol', 1d-8, ierr)
        call ovk_solver_setup(s2, ierr)
        call check(ierr == OVK_OK, 'setup once the tolerance is set again: '//ovk_error_detail())
        call ovk_solver_destroy(s2, ierr)
        call check(ierr == OVK_OK, 'destroy')
        call ovk_solver_destroy(s2, ierr)
        call check(ierr == OVK_OK, 'destroying a destroyed solver')

        if (nlocal > 0 .and. rank == nranks - 1) then ! rowptr past the end of cols on one rank
            rowptr(nlocal + 1) = rowptr(nlocal + 1) + 1
        end if
        call ovk_matrix_create_csr(MPI_COMM_WORLD, first, rowptr, cols, vals, Abad, ierr)
        call check(ierr == OVK_EINVAL, 'rowptr past the end on one rank: OVK_EINVAL everywhere')
        if (rank == nranks - 1) then
            call check(index(ovk_error_detail(), 'points past the end of cols') > 0, 'rowptr: '//ovk_error_detail())
        else
            call check(index(ovk_error_detail(), 'rank ') > 0, 'rowptr: the failing rank named: '//ovk_error_detail())
        end if
        call ovk_matrix_destroy(Abad)
        if (nlocal > 0 .and. rank == nranks - 1) rowptr(nlocal + 1) = rowptr(nlocal + 1) - 1
        if (rank == 0) cols(1) = N + 1
        call ovk_matrix_create_csr(MPI_COMM_WORLD, first, rowptr, cols, vals, Abad, ierr)
        call check(ierr == OVK_ECOLUMN, 'column N+1: OVK_ECOLUMN ('//ovk_status_name(ierr)//')')
        if (rank == 0) then ! ids in details are 1-based, as given
            write (msg, '(a,i0,a,i0,a)') 'row 1: column ', N + 1, ' outside [1, ', N, ']'
            call check(index(ovk_error_detail(), trim(msg)) > 0, 'column N+1, 1-based detail: '//ovk_error_detail())
            cols(1) = -7
        end if
        call ovk_matrix_create_csr(MPI_COMM_WORLD, first, rowptr, cols, vals, Abad, ierr)
        call check(ierr == OVK_ECOLUMN, 'column -7: OVK_ECOLUMN ('//ovk_status_name(ierr)//')')
        if (rank == 0) then
            call check(index(ovk_error_detail(), 'row 1: column -7 ') > 0, 'column -7, 1-based detail: '// &
                ovk_error_detail())
            cols(1) = 1
        end if
        call ovk_matrix_create_csr(MPI_COMM_WORLD, first, rowptr, cols, vals, Abad, ierr, base=2)
        call check(ierr == OVK_EINVAL, 'base 2: OVK_EINVAL')
        call check(index(ovk_error_detail(), 'base') > 0, 'base 2: '//ovk_error_detail())

        if (rank == nranks - 1) then ! arrays of the wrong size on one rank
            call ovk_solver_solve(s, b(1:nlocal - 1), x2(1:nlocal - 1), res2, ierr)
            call check(index(ovk_error_detail(), 'values') > 0, 'wrong size: '//ovk_error_detail())
        else
            call ovk_solver_solve(s, b, x2, res2, ierr)
        end if
        call check(ierr == OVK_EINVAL, 'arrays of the wrong size on one rank: OVK_EINVAL everywhere')
        x2 = 0
        call ovk_solver_solve(s, b, x2, res2, ierr)
        call check(ierr == OVK_OK, 'the solver works after a refused solve')

        call ovk_solver_destroy(s, ierr)
        call check(ierr == OVK_OK, 'destroy')
        call ovk_matrix_destroy(A1)
        call ovk_matrix_destroy(A0)

        call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
        if (rank == 0) then
            if (failures == 0) then
                write (*, '(a,i0,a)') 'test_fortran: PASS (', nranks, ' ranks)'
            else
                write (*, '(a,i0,a)') 'test_fortran: ', failures, ' checks FAILED'
            end if
        end if
    end subroutine run_tests

    !> Rows first..first+nlocal-1 (1-based) of the N x N 1-D Laplacian
    !> tridiag(-1, 2, -1), 1-based CSR.
    subroutine laplace1d(first, nlocal, rowptr, cols, vals)
        integer, intent(in) :: first, nlocal
        integer, allocatable, intent(out) :: rowptr(:)
        integer(int32), allocatable, intent(out) :: cols(:)
        real(real64), allocatable, intent(out) :: vals(:)
        integer :: i, row, k
        allocate (rowptr(nlocal + 1), cols(3 * nlocal), vals(3 * nlocal))
        rowptr(1) = 1
        k = 0
        do i = 1, nlocal
            row = first + i - 1
            if (row < N) then ! any order within a row
                k = k + 1
                cols(k) = row + 1
                vals(k) = -1
            end if
            k = k + 1
            cols(k) = row
            vals(k) = 2
            if (row > 1) then
                k = k + 1
                cols(k) = row - 1
                vals(k) = -1
            end if
            rowptr(i + 1) = k + 1
        end do
        cols = cols(1:k)
        vals = vals(1:k)
    end subroutine laplace1d

    !> A failing call without ierr: the message, then MPI_Abort.
    subroutine abort_without_ierr(first, rowptr, cols, vals)
        integer, intent(in) :: first, rowptr(:)
        integer(int32), intent(in) :: cols(:)
        real(real64), intent(in) :: vals(:)
        type(ovk_matrix) :: A
        type(ovk_solver) :: s
        call ovk_matrix_create_csr(MPI_COMM_WORLD, first, rowptr, cols, vals, A)
        call ovk_solver_create(A, s, solver='nosuch')
        call ovk_solver_setup(s)
        write (*, '(a)') 'test_fortran abort: still running after a failure without ierr'
        call MPI_Finalize()
        stop 3
    end subroutine abort_without_ierr

end program test_fortran
