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
!>   - callbacks (callback_tests, on tridiag(-1, 2 + row/100, -1)): an
!>     operator callback with the assembled matrix's iterations and solution;
!>     Jacobi by hand as a preconditioner callback with precond=jacobi's
!>     iterations, called once per iteration (also with the operator); alg2 refusing it; a monitor with
!>     a context counting iterations+1 calls; the history (iterations+1
!>     entries equal to the monitor's norms, a shorter buffer, off); a
!>     reducer handle used by a solver (destroying it from the monitor is
!>     OVK_EBUSY), by dot products and int64/real reductions, a bad spec;
!>     an operator failing on the last rank and a preconditioner failing on
!>     rank 0: OVK_ECALLBACK on every rank with the callback's code; a
!>     partition error whose detail counts rows from 1.
!>   - options, view, convergence controls (options_tests): the database
!>     from the command line and from an argv-like list (a prefix keeps
!>     two solvers apart, the command line overrides the program's own
!>     set_option, ovk_options_get, unused entries listed to a unit, a bad
!>     value on one rank OVK_EOPTION everywhere, -ovk_options_left at
!>     finalize); the view to a unit with the resolved backend; a
!>     convergence test with a context stopping at the iteration it
!>     chooses (alg1, pipecg: converged; diverged: OVK_EDIVERGED); divtol
!>     stopping at the first norm above divtol ||r0||; a NaN in b reported
!>     at its 1-based row (assembled and operator solvers); the status and
!>     reason constants against the library's names; the solver types.
!> With the argument "env" (run.sh sets OVK_OPTIONS for it): entries of
!> $OVK_OPTIONS too, listed until read, overridden by the arguments.
!> With the argument "abort": a failing call without ierr, which must print
!> the message and abort (checked by run.sh).
module ftest_support
    use, intrinsic :: iso_c_binding, only: c_associated, c_double, c_f_pointer, c_null_char, c_ptr
    use, intrinsic :: iso_fortran_env, only: error_unit, real64
    use mpi_f08, only: MPI_Allgatherv, MPI_COMM_WORLD, MPI_DOUBLE_PRECISION
    use ovkrylov
    implicit none
    integer, parameter :: op_n = 60 !< global rows of the test matrices
    integer :: failures = 0  !< checks failed on this rank
    integer :: calls = 0     !< monitor calls
    integer :: last_iteration = -1
    integer :: my_rank = 0

    !> The monitor's context.
    type :: mon_data
        integer :: calls = 0, nlocal = 0
        real(real64) :: rnorm(0:199) = -1
        logical :: try_red = .false.
        type(ovk_reducer) :: red
        integer :: red_ierr = 1
    end type mon_data

    !> The operator's context: tridiag(-1, diag, -1) of op_n rows, this
    !> rank's rows first..first+nlocal-1, every rank's counts for gathering x.
    type :: op_data
        integer :: first = 1, nlocal = 0, calls = 0, fail_at = 0
        integer, allocatable :: counts(:), displs(:)
        real(real64), allocatable :: diag(:)
    end type op_data

    !> The preconditioner's context.
    type :: pc_data
        real(real64), allocatable :: dinv(:)
        integer :: calls = 0, fail_at = 0
    end type pc_data

    !> The convergence test's context: the iteration it stops at and its
    !> verdict then; what it saw.
    type :: conv_data
        integer :: stop_at = 0, verdict = OVK_VERDICT_CONVERGED, calls = 0, last = -1
        real(real64) :: bnorm = -1, rnorm0 = -1
    end type conv_data

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
    logical function stop_at_5(s, iteration, rnorm, rel, ctx)
        type(ovk_solver), intent(in) :: s
        integer, intent(in) :: iteration
        real(real64), intent(in) :: rnorm, rel
        type(c_ptr), intent(in) :: ctx
        calls = calls + 1
        last_iteration = iteration
        call check(rnorm >= 0 .and. rel >= 0, 'monitor: residuals are not negative')
        call check(ovk_solver_nlocal(s) >= 0, 'monitor: a solver')
        call check(.not. c_associated(ctx), 'monitor without a context: c_null_ptr')
        stop_at_5 = iteration >= 5
    end function stop_at_5

    !> A monitor with a context (mon_data): counts its calls, keeps the
    !> norms; with try_red, tries to destroy the reducer the solve runs on.
    logical function count_calls(s, iteration, rnorm, rel, ctx)
        type(ovk_solver), intent(in) :: s
        integer, intent(in) :: iteration
        real(real64), intent(in) :: rnorm, rel
        type(c_ptr), intent(in) :: ctx
        type(mon_data), pointer :: m
        call c_f_pointer(ctx, m)
        m%calls = m%calls + 1
        if (iteration >= 0 .and. iteration <= ubound(m%rnorm, 1)) m%rnorm(iteration) = rnorm
        if (m%try_red .and. iteration == 1) call ovk_reducer_destroy(m%red, m%red_ierr)
        call check(ovk_solver_nlocal(s) == m%nlocal .and. rel >= 0, 'monitor: the solver handle')
        count_calls = .false.
    end function count_calls

    !> y = A x for tridiag(-1, d, -1) (op_data): x gathered from every rank.
    !> Fails (returns 7) at call fail_at, after the communication.
    integer function laplace_op(s, n, x, y, ctx)
        type(ovk_solver), intent(in) :: s
        integer, intent(in) :: n
        real(real64), intent(in) :: x(n)
        real(real64), intent(out) :: y(n)
        type(c_ptr), intent(in) :: ctx
        type(op_data), pointer :: op
        real(real64) :: full(0:op_n + 1)
        integer :: i, row
        call c_f_pointer(ctx, op)
        op%calls = op%calls + 1
        call check(n == op%nlocal .and. ovk_solver_nlocal(s) == n, 'operator: n is the rank''s rows')
        full = 0
        call MPI_Allgatherv(x, n, MPI_DOUBLE_PRECISION, full(1:op_n), op%counts, op%displs, MPI_DOUBLE_PRECISION, &
            MPI_COMM_WORLD)
        do i = 1, n
            row = op%first + i - 1
            y(i) = op%diag(i) * full(row) - full(row - 1) - full(row + 1)
        end do
        laplace_op = 0
        if (op%calls == op%fail_at) laplace_op = 7
    end function laplace_op

    !> A convergence test (conv_data): verdict at iteration stop_at, go on before.
    integer function stop_when_told(s, iteration, rnorm, bnorm, rnorm0, ctx)
        type(ovk_solver), intent(in) :: s
        integer, intent(in) :: iteration
        real(real64), intent(in) :: rnorm, bnorm, rnorm0
        type(c_ptr), intent(in) :: ctx
        type(conv_data), pointer :: c
        call c_f_pointer(ctx, c)
        c%calls = c%calls + 1
        c%last = iteration
        c%bnorm = bnorm
        c%rnorm0 = rnorm0
        call check(rnorm >= 0 .and. ovk_solver_nlocal(s) >= 0, 'convergence test: its arguments')
        stop_when_told = OVK_VERDICT_CONTINUE
        if (iteration >= c%stop_at) stop_when_told = c%verdict
    end function stop_when_told

    !> Jacobi by hand: y = x / diag (pc_data); fails (returns 9) at call fail_at.
    integer function jacobi_pc(s, n, x, y, ctx)
        type(ovk_solver), intent(in) :: s
        integer, intent(in) :: n
        real(real64), intent(in) :: x(n)
        real(real64), intent(out) :: y(n)
        type(c_ptr), intent(in) :: ctx
        type(pc_data), pointer :: pc
        call c_f_pointer(ctx, pc)
        pc%calls = pc%calls + 1
        call ovk_solver_progress(s)
        y = x * pc%dinv
        jacobi_pc = 0
        if (pc%calls == pc%fail_at) jacobi_pc = 9
    end function jacobi_pc

end module ftest_support

program test_fortran
    use, intrinsic :: iso_c_binding, only: c_loc
    use, intrinsic :: ieee_arithmetic, only: ieee_quiet_nan, ieee_value
    use, intrinsic :: iso_fortran_env, only: int32, int64, real64
    use mpi_f08
    use ovkrylov
    use ftest_support
    implicit none

    integer, parameter :: N = op_n ! global rows

    call MPI_Init()
    call run_tests()
    call MPI_Finalize()
    if (failures /= 0) stop 1, quiet = .true.

contains

    !> ovk_solver_solve_many on the columns of (nlocal, 3) arrays: b (as
    !> the single solve x1 in its iterations), 2 b, 0; then bad sizes.
    subroutine many_rhs(s, b, x1, iterations)
        type(ovk_solver), intent(inout) :: s
        real(real64), intent(in) :: b(:), x1(:)
        integer, intent(in) :: iterations
        real(real64), allocatable, target :: bm(:, :), xm(:, :)
        type(ovk_result) :: rm(3)
        integer :: ierr
        allocate (bm(size(b), 3), xm(size(b), 3))
        bm(:, 1) = b
        bm(:, 2) = 2 * b
        bm(:, 3) = 0
        xm = 0
        call ovk_solver_solve_many(s, bm, xm, rm, ierr)
        call check(ierr == OVK_OK .and. rm(1)%iterations == iterations .and. rm(3)%iterations == 0, &
            'solve_many: '//ovk_status_name(ierr))
        call check(maxval(abs(xm(:, 1) - x1), mask=.true.) <= 1d-12 * max(1d0, maxval(abs(x1))) .or. size(b) == 0, &
            'solve_many: system 1 as the single solve')
        call check(all(xm(:, 3) == 0), 'solve_many: b = 0 gives x = 0')
        call ovk_solver_solve_many(s, bm, xm(:, 1:2), rm, ierr)
        call check(ierr == OVK_EINVAL, 'solve_many: x of 2 columns for 3 systems ('//ovk_status_name(ierr)//')')
    end subroutine many_rhs

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
        logical :: env_case
        character(len=96) :: msg
        type(ovk_matrix) :: A1, A0, Abad
        type(ovk_solver) :: s, s2, s3
        real(real64), allocatable :: nsv(:, :)
        integer, allocatable :: fields(:)
        type(ovk_vector) :: vb, vx, vw, vbw, vy
        type(ovk_pcg_result) :: res, res2, res_fs ! the deprecated name of ovk_result: the same type
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

        env_case = .false.
        if (command_argument_count() >= 1) then
            call get_command_argument(1, length=i)
            allocate (character(len=i) :: arg)
            call get_command_argument(1, arg)
            if (arg == 'abort') call abort_without_ierr(first, rowptr, cols, vals)
            env_case = arg == 'env'
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
        call ovk_solver_get_option(s, 'rtol', text, ierr)
        read (text, *) tolread
        call check(tolread == 1d-10, 'the tolerance exactly as given ('//text//')')
        call ovk_solver_set_option(s, 'max_it', 500, ierr)
        call ovk_solver_get_option(s, 'max_it', text)
        call check(ierr == OVK_OK .and. text == '500', 'integer option')
        call ovk_solver_set_option(s, 'atol', 0d0, ierr)
        call check(ierr == OVK_OK, 'real option')
        call ovk_solver_set_options(s, ierr, solver='alg1', precond='jacobi', tol=1d-10)
        call check(ierr == OVK_OK, 'set_options')
        ! a NUL inside a value is refused (C would read 'scg:s=4' and drop the rest)
        call ovk_solver_set_option(s, 'solver', 'scg:s=4'//char(0)//'junk', ierr)
        text = ovk_error_detail()
        call check(ierr == OVK_EOPTION .and. index(text, 'NUL') > 0, 'a NUL in a value: '//text)
        call ovk_solver_get_option(s, 'solver', text)
        call check(text == 'alg1', 'the solver kept after the NUL: '//text)
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

        ! ---- a null space: the wrong length on one rank, the constant twice, removal ----
        call ovk_solver_create(A1, s3, ierr, solver='cg1')
        allocate (nsv(nlocal + merge(1, 0, rank == 0), 1))
        nsv = 1
        call ovk_solver_set_nullspace(s3, .false., nsv, ierr)
        text = ovk_error_detail()
        call check(ierr == OVK_EINVAL .and. index(text, 'rows') > 0, &
            'null space of the wrong length on one rank: OVK_EINVAL everywhere')
        call ovk_solver_set_nullspace(s3, .true., nsv(1:nlocal, :), ierr)
        call check(ierr == OVK_OK, 'null space: the constant and a vector: '//ovk_error_detail())
        call ovk_solver_setup(s3, ierr)
        text = ovk_error_detail()
        call check(ierr == OVK_EINVAL .and. index(text, 'depends') > 0, &
            'the constant twice: refused at setup')
        call ovk_solver_set_nullspace(s3, .false., ierr=ierr)
        if (ierr == OVK_OK) call ovk_solver_setup(s3, ierr)
        call check(ierr == OVK_OK, 'null space removed: '//ovk_error_detail())
        call ovk_solver_destroy(s3)

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
        call many_rhs(s, b, x1, res%iterations)
        call check(ovk_reason_name(res%reason) /= '', 'reason name')

        ! ---- fieldsplit's fields: the wrong length on one rank, an id 2, then a solve ----
        call ovk_solver_create(A1, s3, ierr, solver='gmres', precond='fieldsplit:type=lower,0=jacobi')
        allocate (fields(nlocal + merge(1, 0, rank == 0)))
        fields = [(mod(first + i, 2), i = 0, size(fields) - 1)] ! odd rows field 1, even rows field 0 (1-based)
        call ovk_solver_set_fields(s3, fields, ierr)
        text = ovk_error_detail()
        call check(ierr == OVK_EINVAL .and. index(text, 'field ids for') > 0, &
            'fields of the wrong length on one rank: OVK_EINVAL everywhere ('//text//')')
        if (nlocal > 0 .and. rank == nranks - 1) fields(nlocal) = 2
        call ovk_solver_set_fields(s3, fields(1:nlocal), ierr)
        text = ovk_error_detail()
        call check(ierr == OVK_EINVAL .and. index(text, 'field is 2') > 0, 'a field id 2: OVK_EINVAL everywhere ('//text//')')
        fields = [(mod(first + i, 2), i = 0, size(fields) - 1)]
        call ovk_solver_set_fields(s3, fields(1:nlocal), ierr)
        x2 = 0
        if (ierr == OVK_OK) call ovk_solver_solve(s3, b, x2, res_fs, ierr)
        call check(ierr == OVK_OK .and. res_fs%reason == OVK_REASON_CONVERGED, &
            'gmres + fieldsplit:type=lower (the Laplacian split by odd and even rows): '//ovk_error_detail())
        call ovk_solver_set_schur_matrix(s3, A1, ierr) ! N rows for field 1's N/2: refused at setup
        if (ierr == OVK_OK) call ovk_solver_setup(s3, ierr)
        text = ovk_error_detail()
        call check(ierr == OVK_EMISMATCH .and. index(text, 'Schur matrix has') > 0, &
            'a Schur matrix of the wrong size: OVK_EMISMATCH everywhere ('//text//')')
        call ovk_solver_destroy(s3)

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
        call ovk_solver_create(A0, s2, ierr, solver='alg1', rtol=1d-10, max_it=500)
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
        ! an array one element short on rank 0 only: every rank reports its cause
        if (rank == 0) then
            call ovk_solver_solve(s, b(1:nlocal - 1), x2, res2, ierr)
        else
            call ovk_solver_solve(s, b, x2, res2, ierr)
        end if
        text = ovk_error_detail()
        call check(ierr == OVK_EINVAL .and. index(text, 'values and x') > 0, 'b one element short on rank 0: '//text)

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
        if (rank == 0) call ovk_solver_set_option(s2, 'rtol', 1d-8, ierr)
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

        call callback_tests(rank, nranks, counts, first, nlocal)
        call convdiff_tests(nranks)
        call options_tests(A1, rank, nranks, first, nlocal, env_case)

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

    !> ovk_convdiff_create: gmres and auto converge on it (auto choosing a
    !> nonsymmetric method), a CG variant is refused (OVK_ENOTSYM), a bad scheme
    !> is OVK_EINVAL.
    subroutine convdiff_tests(nranks)
        integer, intent(in) :: nranks
        type(ovk_matrix) :: C
        type(ovk_solver) :: s
        type(ovk_result) :: res
        real(real64), allocatable :: b(:), x(:)
        character(len=8), parameter :: specs(3) = [character(len=8) :: 'gmres', 'auto', 'alg1']
        integer :: ierr, k, its(3)
        call ovk_convdiff_create(MPI_COMM_WORLD, 6, 5, 4, nranks, 1, 1, [1d0, 0.5d0, -0.25d0], 50d0, &
            OVK_CONVDIFF_UPWIND, C, ierr)
        call check(ierr == OVK_OK .and. ovk_matrix_nglobal(C) == 120 * nranks, 'convdiff: '//ovk_error_detail())
        if (ierr /= OVK_OK) return
        allocate (b(ovk_matrix_nlocal(C)), x(ovk_matrix_nlocal(C)))
        b = 1
        do k = 1, 3
            x = 0
            call ovk_solver_create(C, s, ierr, solver=trim(specs(k)), tol=1d-8, max_iter=500)
            call check(ierr == OVK_OK, 'convdiff: create '//trim(specs(k)))
            call ovk_solver_solve(s, b, x, res, ierr)
            if (k < 3) then
                call check(ierr == OVK_OK .and. res%reason == OVK_REASON_CONVERGED .and. res%rel_residual < 1d-8, &
                    'convdiff: '//trim(specs(k))//' converges: '//ovk_error_detail())
                call info_checks(s, res, trim(specs(k)) == 'auto')
            else
                call check(ierr == OVK_ENOTSYM, 'convdiff: alg1 refused: '//ovk_error_detail())
            end if
            call ovk_solver_destroy(s)
        end do
        ! gcrodr keeps its space across solves; ovk_solver_recycle_reset drops it
        call ovk_solver_create(C, s, ierr, solver='gcrodr:restart=12', tol=1d-8, max_iter=500)
        call ovk_solver_set_option(s, 'recycle', '4', ierr)
        call check(ierr == OVK_OK, 'recycle=4: '//ovk_error_detail())
        do k = 1, 3
            if (k == 3) call ovk_solver_recycle_reset(s, ierr)
            call check(ierr == OVK_OK, 'recycle_reset: '//ovk_error_detail())
            x = 0
            call ovk_solver_solve(s, b, x, res, ierr)
            call check(ierr == OVK_OK .and. res%rel_residual < 1d-8, 'gcrodr recycle=4: '//ovk_error_detail())
            its(k) = res%iterations
        end do
        call check(its(2) < its(1) .and. its(3) == its(1), 'gcrodr: the space cuts the second solve, the reset drops it')
        call ovk_solver_destroy(s)
        call ovk_matrix_destroy(C)
        call ovk_convdiff_create(MPI_COMM_WORLD, 6, 5, 4, nranks, 1, 1, [1d0, 0d0, 0d0], 50d0, 7, C, ierr)
        call check(ierr == OVK_EINVAL, 'convdiff: scheme 7 refused')
    end subroutine convdiff_tests

    !> ovk_solver_get_info(_text) after a solve: auto's choice and figures as
    !> the result has them ("" and 0 for another solver), an unknown key and a
    !> text key read as a number refused with OVK_EINVAL naming the keys.
    subroutine info_checks(s, res, is_auto)
        type(ovk_solver), intent(in) :: s
        type(ovk_result), intent(in) :: res
        logical, intent(in) :: is_auto
        character(len=:), allocatable :: choice, detail
        character(len=32) :: want
        real(c_double) :: lat
        integer :: ierr, n
        want = ''
        do n = 1, size(res%auto_choice)
            if (res%auto_choice(n) == c_null_char) exit
            want(n:n) = res%auto_choice(n)
        end do
        call ovk_solver_get_info_text(s, 'auto_choice', choice, ierr)
        call check(ierr == OVK_OK .and. choice == trim(want) .and. (len(choice) > 0 .eqv. is_auto), &
            'get_info_text auto_choice: "'//choice//'", the result''s "'//trim(want)//'"')
        call ovk_solver_get_info(s, 'auto_latency_us', lat, ierr)
        call check(ierr == OVK_OK .and. lat == res%auto_latency_us .and. ((lat > 0) .eqv. is_auto), &
            'get_info auto_latency_us as the result''s')
        call ovk_solver_get_info(s, 'no_such_key', lat, ierr)
        detail = ovk_error_detail()
        call check(ierr == OVK_EINVAL .and. index(detail, 'auto_choice') > 0, &
            'get_info of an unknown key: OVK_EINVAL naming the keys: '//detail)
        call ovk_solver_get_info(s, 'auto_choice', lat, ierr)
        call check(ierr == OVK_EINVAL, 'get_info of the text key auto_choice refused')
    end subroutine info_checks

    !> The callbacks (operator, preconditioner, monitor with contexts), the
    !> history, the reducer handle and its reductions, failing callbacks,
    !> 1-based ids in a partition error.  On tridiag(-1, 2 + row/100, -1).
    subroutine callback_tests(rank, nranks, counts, first, nlocal)
        integer, intent(in) :: rank, nranks, counts(0:), first, nlocal
        integer, allocatable :: rowptr(:)
        integer(int32), allocatable :: cols(:)
        real(real64), allocatable :: vals(:), b(:), xa(:), xo(:), xp(:), xj(:)
        real(real64), allocatable, target :: hist(:), wide(:)
        real(real64), target, asynchronous :: dots(2), rmax(1), rloc(1)
        integer(int64), target, asynchronous :: isend(2), irecv(2)
        type(mon_data), target :: mon
        type(op_data), target :: op
        type(pc_data), target :: pcd
        type(ovk_matrix) :: Ad, Abad
        type(ovk_solver) :: sa, so, sj, sp
        type(ovk_reducer) :: red, bad
        type(ovk_request) :: req
        type(ovk_vector) :: v(2)
        type(ovk_result) :: resa, reso, resj, resp
        real(real64), pointer :: p(:)
        real(real64) :: ref(2), scale
        character(len=96) :: msg
        logical :: done
        integer :: ierr, i, k, row, len

        call laplace1d(first, nlocal, rowptr, cols, vals)
        allocate (op%diag(nlocal), pcd%dinv(nlocal))
        do i = 1, nlocal
            row = first + i - 1
            op%diag(i) = 2 + row / 100d0
            pcd%dinv(i) = 1 / op%diag(i)
            do k = rowptr(i), rowptr(i + 1) - 1
                if (cols(k) == row) vals(k) = op%diag(i)
            end do
        end do
        op%first = first
        op%nlocal = nlocal
        op%counts = counts
        allocate (op%displs(0:nranks - 1))
        op%displs(0) = 0
        do i = 1, nranks - 1
            op%displs(i) = op%displs(i - 1) + counts(i - 1)
        end do
        mon%nlocal = nlocal
        call ovk_matrix_create_csr(MPI_COMM_WORLD, first, rowptr, cols, vals, Ad, ierr)
        call check(ierr == OVK_OK, 'varying diagonal: '//ovk_error_detail())
        allocate (b(nlocal), xa(nlocal), xo(nlocal), xp(nlocal), xj(nlocal), hist(100))
        b = 1
        xa = 0
        hist = -1

        ! ---- assembled, no preconditioner: a monitor with a context, the history ----
        call ovk_solver_create(Ad, sa, ierr, solver='alg1', precond='none', tol=1d-10)
        call ovk_solver_set_monitor(sa, count_calls, ierr, ctx=c_loc(mon))
        call check(ierr == OVK_OK, 'set_monitor with a context')
        call ovk_solver_set_history(sa, hist, ierr)
        call check(ierr == OVK_OK, 'set_history')
        call ovk_solver_setup(sa, ierr)
        call ovk_solver_solve(sa, b, xa, resa, ierr)
        call check(ierr == OVK_OK .and. resa%iterations > 5, 'assembled: converged ('//ovk_error_detail()//')')
        call check(mon%calls == resa%iterations + 1, 'monitor with a context: called iterations+1 times')
        len = resa%history_len
        call check(len == resa%iterations + 1, 'history: iterations+1 entries')
        call check(all(hist(1:len) == mon%rnorm(0:len - 1)) .and. all(hist(len + 1:) == -1), &
            'history: the monitor''s norms, nothing past history_len')
        call check(abs(hist(1) - sqrt(real(op_n, real64))) < 1d-12 * hist(1), 'history(1) = ||b|| (x0 = 0)')
        call check(hist(len) < 1d-10 * hist(1), 'history: the last norm converged')
        call ovk_solver_set_history(sa, hist(1:10:2), ierr)
        call check(ierr == OVK_EINVAL, 'history: a strided section is refused (the library keeps its address)')
        call ovk_solver_set_history(sa, hist(1:3), ierr)
        hist = -1
        xo = 0
        call ovk_solver_solve(sa, b, xo, reso, ierr)
        call check(ierr == OVK_OK .and. reso%history_len == 3 .and. all(hist(1:3) == mon%rnorm(0:2)) .and. &
            all(hist(4:) == -1), 'history of 3: the first three norms')
        call ovk_solver_set_history(sa, ierr=ierr)
        hist = -1
        xo = 0
        call ovk_solver_solve(sa, b, xo, reso, ierr)
        call check(ierr == OVK_OK .and. reso%history_len == 0 .and. all(hist == -1), 'history off')

        allocate (wide(2 * nlocal))
        call ovk_vector_wrap(sa, wide(1:2 * nlocal:2), v(1), ierr)
        call check(ierr == merge(OVK_EINVAL, OVK_OK, nlocal >= 2), 'wrap: a strided section is refused')
        call ovk_vector_destroy(v(1))

        ! ---- the same system through an operator callback: the same iterations ----
        call ovk_solver_create_operator(MPI_COMM_WORLD, nlocal, laplace_op, so, ierr, ctx=c_loc(op), &
            solver='alg1', precond='none', tol=1d-10)
        call check(ierr == OVK_OK .and. ovk_solver_nlocal(so) == nlocal, 'create_operator: '//ovk_error_detail())
        call ovk_solver_setup(so, ierr)
        call check(ierr == OVK_OK, 'operator setup: '//ovk_error_detail())
        xo = 0
        call ovk_solver_solve(so, b, xo, reso, ierr)
        scale = maxval(abs(xa))
        call MPI_Allreduce(MPI_IN_PLACE, scale, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
        call check(ierr == OVK_OK .and. reso%iterations == resa%iterations .and. op%calls > reso%iterations, &
            'operator: the assembled matrix''s iterations ('//ovk_error_detail()//')')
        call check(all(abs(xo - xa) <= 1d-8 * scale), 'operator: the assembled matrix''s solution')

        ! ---- Jacobi by hand: the iterations of precond=jacobi ----
        call ovk_solver_create(Ad, sj, ierr, solver='alg1', precond='jacobi', tol=1d-10)
        call ovk_solver_setup(sj, ierr)
        xj = 0
        call ovk_solver_solve(sj, b, xj, resj, ierr)
        call check(ierr == OVK_OK, 'precond=jacobi')
        call ovk_solver_create(Ad, sp, ierr, solver='alg1', tol=1d-10)
        call ovk_solver_set_precond_fn(sp, jacobi_pc, ierr, ctx=c_loc(pcd))
        call check(ierr == OVK_OK, 'set_precond_fn')
        call ovk_solver_setup(sp, ierr)
        xp = 0
        call ovk_solver_solve(sp, b, xp, resp, ierr)
        call check(ierr == OVK_OK .and. resp%iterations == resj%iterations .and. pcd%calls == resp%iterations, &
            'preconditioner callback: the iterations of jacobi, one call each ('//ovk_error_detail()//')')
        call check(all(abs(xp - xj) <= 1d-8 * scale), 'preconditioner callback: jacobi''s solution')
        call ovk_solver_set_precond_fn(so, jacobi_pc, ierr, ctx=c_loc(pcd)) ! operator and preconditioner
        call ovk_solver_setup(so, ierr)
        xo = 0
        call ovk_solver_solve(so, b, xo, reso, ierr)
        call check(ierr == OVK_OK .and. reso%iterations == resj%iterations, 'operator + jacobi callback')
        call ovk_solver_set_option(sp, 'solver', 'alg2', ierr)
        call ovk_solver_setup(sp, ierr)
        call check(ierr == OVK_EUNSUPPORTED, 'alg2 refuses a preconditioner callback ('//ovk_status_name(ierr)//')')
        call ovk_solver_set_precond_fn(sp, ierr=ierr)
        call ovk_solver_setup(sp, ierr)
        call check(ierr == OVK_OK, 'alg2 once the callback is removed: '//ovk_error_detail())

        ! ---- a reducer handle: used by a solver, by dot products and reductions ----
        call ovk_reducer_create(MPI_COMM_WORLD, 'nbc', red, ierr)
        call check(ierr == OVK_OK, 'reducer nbc: '//ovk_error_detail())
        call check(ovk_reducer_name(red) == 'nbc', 'reducer name: '//ovk_reducer_name(red))
        call check(index(ovk_reducer_spec(red), 'nbc') == 1, 'reducer spec: '//ovk_reducer_spec(red))
        call ovk_solver_set_reducer(sa, red, ierr)
        call check(ierr == OVK_OK, 'set_reducer')
        call ovk_solver_setup(sa, ierr)
        mon%try_red = .true.
        mon%red = red
        xo = 0
        call ovk_solver_solve(sa, b, xo, reso, ierr)
        mon%try_red = .false.
        call check(ierr == OVK_OK .and. reso%iterations == resa%iterations, 'solve on the reducer handle')
        call check(mon%red_ierr == OVK_EBUSY, 'the solve uses the handle: destroying it from the monitor is '// &
            'OVK_EBUSY ('//ovk_status_name(mon%red_ierr)//')')
        call ovk_vector_create(Ad, v(1), ierr)
        call ovk_vector_create(Ad, v(2), ierr)
        p => ovk_vector_data(v(1))
        p = b
        p => ovk_vector_data(v(2))
        p = xa
        dots = -1
        call ovk_dot_init(red, v, [v(2), v(2)], dots, req, ierr)
        call check(ierr == OVK_OK, 'dot_init: '//ovk_error_detail())
        call ovk_dot_wait(req, ierr)
        call check(ierr == OVK_OK, 'dot_wait')
        ref = [dot_product(b, xa), dot_product(xa, xa)]
        call MPI_Allreduce(MPI_IN_PLACE, ref, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
        call check(all(abs(dots - ref) <= 1d-13 * abs(ref)), 'dot products on the reducer')
        call ovk_dot_init(red, v, v(1:1), dots, req, ierr)
        call check(ierr == OVK_EINVAL, 'dot_init: 2 x and 1 y: OVK_EINVAL')
        isend = [int(nlocal, int64), int(rank, int64)]
        call ovk_reduce_start(red, isend, irecv, OVK_SUM, req, ierr)
        call ovk_reduce_wait(req, ierr)
        call check(ierr == OVK_OK .and. irecv(1) == op_n .and. irecv(2) == nranks * (nranks - 1) / 2, &
            'int64 sum on the reducer')
        call ovk_reduce_start(red, isend(1:2:2), irecv(1:2:2), OVK_SUM, req, ierr)
        call check(ierr == OVK_OK, 'a section of one element is contiguous')
        call ovk_reduce_wait(req, ierr)
        call check(ierr == OVK_OK .and. irecv(1) == op_n, 'int64 sum of one element')
        call ovk_reduce_start(red, isend(2:1:-1), irecv, OVK_SUM, req, ierr)
        call check(ierr == OVK_EINVAL, 'a reversed section is refused: '//ovk_error_detail())
        rloc = rank
        call ovk_reduce_start(red, rloc, rmax, OVK_MAX, req, ierr)
        do i = 1, 1000000
            call ovk_reduce_test(req, done, ierr)
            if (done .or. ierr /= OVK_OK) exit
        end do
        call check(done .and. ierr == OVK_OK, 'reduce_test: done')
        call ovk_reduce_wait(req, ierr)
        call check(ierr == OVK_OK .and. rmax(1) == nranks - 1, 'real max on the reducer')
        call ovk_reducer_create(MPI_COMM_WORLD, 'nosuch', bad, ierr)
        call check(ierr == OVK_EBACKEND, 'reducer nosuch: OVK_EBACKEND ('//ovk_status_name(ierr)//')')
        call ovk_solver_set_reducer(sa, ierr=ierr)
        call ovk_solver_setup(sa, ierr)
        call check(ierr == OVK_OK, 'back to the backend option')
        call ovk_reducer_destroy(red, ierr)
        call check(ierr == OVK_OK, 'reducer destroy: '//ovk_error_detail())
        call ovk_vector_destroy(v(1))
        call ovk_vector_destroy(v(2))

        ! ---- failing callbacks: OVK_ECALLBACK on every rank ----
        if (rank == nranks - 1) op%fail_at = op%calls + 4
        xo = 0
        call ovk_solver_solve(so, b, xo, reso, ierr)
        call check(ierr == OVK_ECALLBACK, 'operator fails on the last rank: OVK_ECALLBACK everywhere ('// &
            ovk_status_name(ierr)//')')
        if (rank == nranks - 1) call check(index(ovk_error_detail(), 'operator callback returned 7') > 0, &
            'failed operator: '//ovk_error_detail())
        op%fail_at = 0
        xo = 0
        call ovk_solver_solve(so, b, xo, reso, ierr)
        call check(ierr == OVK_OK, 'the operator solver works after a failed callback')
        if (rank == 0) pcd%fail_at = pcd%calls + 3
        xo = 0
        call ovk_solver_solve(so, b, xo, reso, ierr)
        call check(ierr == OVK_ECALLBACK, 'preconditioner fails on rank 0: OVK_ECALLBACK everywhere ('// &
            ovk_status_name(ierr)//')')
        if (rank == 0) call check(index(ovk_error_detail(), 'preconditioner callback returned 9') > 0, &
            'failed preconditioner: '//ovk_error_detail())
        pcd%fail_at = 0

        ! ---- a NaN in b of the operator solver: its row counts from 1 too ----
        if (rank == nranks - 1) b(1) = ieee_value(1d0, ieee_quiet_nan)
        xo = 0
        call ovk_solver_solve(so, b, xo, reso, ierr)
        call check(ierr == OVK_ENONFINITE, 'operator, NaN in b on the last rank: OVK_ENONFINITE everywhere')
        if (rank == nranks - 1) then
            write (msg, '(a,i0,a)') 'b at row ', first, ' is nan'
            call check(index(ovk_error_detail(), trim(msg)) > 0, 'operator, NaN in b: the 1-based row: '// &
                ovk_error_detail())
            b(1) = 1
        end if

        ! ---- 1-based ids: rank 0's rows start at 2 ----
        call ovk_matrix_create_csr(MPI_COMM_WORLD, merge(first + 1, first, rank == 0), rowptr, cols, vals, Abad, ierr)
        call check(ierr == OVK_EPARTITION, 'rows from 2: OVK_EPARTITION ('//ovk_status_name(ierr)//')')
        write (msg, '(a,i0,a)') 'rank 0 owns rows [2, ', counts(0) + 2, ') but the rows before it end at 1'
        call check(index(ovk_error_detail(), trim(msg)) > 0, 'partition, 1-based rows: '//ovk_error_detail())
        call check(index(ovk_error_detail(), 'tile [1, N+1)') > 0, 'partition, 1-based range: '//ovk_error_detail())

        call ovk_solver_destroy(sa, ierr)
        call ovk_solver_destroy(so, ierr)
        call check(ierr == OVK_OK, 'operator destroy')
        call ovk_solver_destroy(sj)
        call ovk_solver_destroy(sp)
        call ovk_matrix_destroy(Ad)
    end subroutine callback_tests

    !> The options database, the view, the convergence test, divtol, the
    !> non-finite b's row, the constants and the solver types (on A, the
    !> 1-D Laplacian of run_tests).
    subroutine options_tests(A, rank, nranks, first, nlocal, env_case)
        type(ovk_matrix), intent(in) :: A
        integer, intent(in) :: rank, nranks, first, nlocal
        logical, intent(in) :: env_case
        character(len=*), parameter :: env_words = '-env_ovk_solver cg1 -env_ovk_max_it 77 -ovk_rtol 1e-7'
        character(len=24), parameter :: words(*) = [character(len=24) :: '-ovk_solver', 'pipecg', '-ovk_rtol', &
            '1e-9', '-ovk_max_it', '300', '-ovk_backend', 'nbc', '-p_ovk_precond', 'none', '-p_ovk_divtol', '1e5', &
            '-ovk_bogus', '-n', '12', '-x', '0.25']
        type(ovk_solver) :: s, sp, se, sc, sd
        type(ovk_result) :: res
        type(conv_data), target :: cd
        real(real64), allocatable :: b(:), x(:)
        real(real64), allocatable, target :: hist(:)
        real(real64) :: value, peak, divtol
        character(len=:), allocatable :: text
        character(len=256) :: line, envval
        character(len=24) :: bad(2)
        integer, parameter :: codes(*) = [OVK_OK, OVK_EINVAL, OVK_ENOMEM, OVK_EMPI, OVK_EPARTITION, OVK_ECOLUMN, &
            OVK_EMISMATCH, OVK_EZERODIAG, OVK_EFILE, OVK_EFORMAT, OVK_ENOTSYM, OVK_EBACKEND, OVK_EOPTION, &
            OVK_EUNSUPPORTED, OVK_ESTATE, OVK_EBUSY, OVK_EBREAKDOWN, OVK_ENONFINITE, OVK_EMAXIT, OVK_ECALLBACK, &
            OVK_ESTOPPED, OVK_EPRECOND, OVK_EDIVERGED, OVK_ESTAGNATED]
        character(len=16), parameter :: code_names(*) = [character(len=16) :: 'OVK_OK', 'OVK_EINVAL', 'OVK_ENOMEM', &
            'OVK_EMPI', 'OVK_EPARTITION', 'OVK_ECOLUMN', 'OVK_EMISMATCH', 'OVK_EZERODIAG', 'OVK_EFILE', 'OVK_EFORMAT', &
            'OVK_ENOTSYM', 'OVK_EBACKEND', 'OVK_EOPTION', 'OVK_EUNSUPPORTED', 'OVK_ESTATE', 'OVK_EBUSY', &
            'OVK_EBREAKDOWN', 'OVK_ENONFINITE', 'OVK_EMAXIT', 'OVK_ECALLBACK', 'OVK_ESTOPPED', 'OVK_EPRECOND', &
            'OVK_EDIVERGED', 'OVK_ESTAGNATED']
        integer, parameter :: reasons(*) = [OVK_REASON_NONE, OVK_REASON_CONVERGED, OVK_REASON_MAXIT, &
            OVK_REASON_BREAKDOWN, OVK_REASON_NONFINITE, OVK_REASON_MONITOR, OVK_REASON_DIVERGED, &
            OVK_REASON_STAGNATED]
        character(len=24), parameter :: reason_names(*) = [character(len=24) :: 'none', 'converged', &
            'iteration limit', 'breakdown', 'non-finite', 'stopped by the monitor', 'diverged', &
            'stagnated']
        logical :: found, seen
        integer :: ierr, nval, u, ios, i, want, len, envlen

        allocate (b(nlocal), x(nlocal), hist(0:399))
        b = 1

        ! ---- the command line (no -ovk_* words: "env" at most) and $OVK_OPTIONS ----
        call get_environment_variable('OVK_OPTIONS', envval, length=envlen)
        call check(.not. env_case .or. envval(1:envlen) == env_words, 'the env case runs with OVK_OPTIONS="'// &
            env_words//'" (run.sh), got "'//envval(1:envlen)//'"')
        call ovk_options_set_args(ierr)
        call check(ierr == OVK_OK, 'options_set_args from the command line: '//ovk_error_detail())
        call check(ovk_options_left() == merge(3, 0, env_case), 'unused entries: those of $OVK_OPTIONS')

        ! ---- an argv-like list: the command line overrides the program's choice ----
        call ovk_options_set_args(ierr, args=words)
        call check(ierr == OVK_OK, 'options_set_args(args=): '//ovk_error_detail())
        call ovk_solver_create(A, s, ierr, solver='cg1', tol=1d-6)
        call ovk_solver_set_from_options(s, ierr)
        call check(ierr == OVK_OK, 'set_from_options: '//ovk_error_detail())
        call ovk_solver_get_option(s, 'solver', text)
        call check(text == 'pipecg', '-ovk_solver pipecg over the program''s cg1: '//text)
        call ovk_solver_get_option(s, 'rtol', text)
        read (text, *) value
        call check(value == 1d-9, '-ovk_rtol 1e-9 (over $OVK_OPTIONS'' 1e-7 in the env case): '//text)
        call ovk_solver_get_option(s, 'max_it', text)
        call check(text == '300', '-ovk_max_it 300: '//text)
        call ovk_solver_get_option(s, 'precond', text)
        call check(text == 'jacobi', 'the prefixed -p_ovk_precond is not read without the prefix: '//text)
        ! a prefix keeps a second solver apart
        call ovk_solver_create(A, sp, ierr)
        call ovk_solver_set_from_options(sp, ierr, 'p_')
        call check(ierr == OVK_OK, 'set_from_options with a prefix: '//ovk_error_detail())
        call ovk_solver_get_option(sp, 'precond', text)
        call check(text == 'none', 'prefix p_: precond none: '//text)
        call ovk_solver_get_option(sp, 'solver', text)
        call check(text == 'alg1', 'prefix p_: -ovk_solver is not read: '//text)
        call ovk_solver_get_option(sp, 'divtol', text)
        read (text, *) value
        call check(value == 1d5, 'prefix p_: divtol 1e5: '//text)
        if (env_case) then ! $OVK_OPTIONS' entries under their own prefix
            call ovk_solver_create(A, se, ierr)
            call ovk_solver_set_from_options(se, ierr, 'env_')
            call ovk_solver_get_option(se, 'solver', text)
            call check(ierr == OVK_OK .and. text == 'cg1', '$OVK_OPTIONS: -env_ovk_solver cg1: '//text)
            call ovk_solver_get_option(se, 'max_it', text)
            call check(text == '77', '$OVK_OPTIONS: -env_ovk_max_it 77: '//text)
            call ovk_solver_destroy(se)
        end if
        ! the program's own entries
        nval = -1
        call ovk_options_get('-n', nval, found, ierr)
        call check(ierr == OVK_OK .and. found .and. nval == 12, 'options_get -n: 12')
        value = -1
        call ovk_options_get('x', value, found, ierr)
        call check(ierr == OVK_OK .and. found .and. value == 0.25d0, 'options_get x: 0.25')
        call ovk_options_get('-nosuch', nval, found, ierr)
        call check(ierr == OVK_OK .and. .not. found .and. nval == 12, 'options_get of an absent entry')
        text = 'untouched'
        call ovk_options_get('-ovk_bogus', text, found, ierr)
        call check(ierr == OVK_OK .and. found .and. text == '', 'options_get of a flag: found, empty')
        call ovk_options_get('-ovk_solver', nval, found, ierr)
        call check(ierr == OVK_EOPTION .and. .not. found, 'options_get: pipecg is not an integer')
        ! a value of 3000 characters through the allocatable string (a fixed buffer of 1024 refused it)
        call ovk_options_set_args(ierr, args=[character(len=3000) :: '-long', repeat('v', 2999)//'w'])
        call ovk_options_get('-long', text, found, ierr)
        call check(ierr == OVK_OK .and. found .and. len_trim(text) == 3000, 'options_get of a 3000-character value')
        if (len_trim(text) == 3000) call check(text(3000:3000) == 'w', 'the value''s last character')
        call ovk_solver_set_option(s, 'precond', 'jacobi', ierr)
        call ovk_solver_get_option(s, 'precond', text, ierr)
        call check(ierr == OVK_OK .and. text == 'jacobi', 'get_option after the long value: '//text)
        call ovk_solver_get_option(s, 'nosuch', text, ierr)
        call check(ierr == OVK_EOPTION .and. text == '', 'get_option of an unknown key: OVK_EOPTION, empty')
        call ovk_options_set_args(ierr, args=words)
        ! unused: -ovk_bogus was read by options_get just now; set the list again to see it left
        call ovk_options_set_args(ierr, args=words)
        call ovk_solver_set_from_options(s, ierr)
        call ovk_solver_set_from_options(sp, ierr, 'p_')
        if (env_case) call ovk_options_get('-env_ovk_solver', text, found)
        if (env_case) call ovk_options_get('-env_ovk_max_it', text, found)
        open (newunit=u, status='scratch', action='readwrite', form='formatted')
        call check(ovk_options_left(u) == 1, 'one entry left: -ovk_bogus')
        rewind (u)
        read (u, '(a)', iostat=ios) line
        call check(ios == 0 .and. index(line, 'ovk: option -ovk_bogus was not used') > 0, 'the listing: '//trim(line))
        close (u)

        ! ---- the solve and the view: the backend as resolved ----
        x = 0
        call ovk_solver_solve(s, b, x, res, ierr)
        call check(ierr == OVK_OK .and. res%reason == OVK_REASON_CONVERGED .and. res%rel_residual < 1d-9, &
            'pipecg from the options converged ('//ovk_error_detail()//')')
        open (newunit=u, status='scratch', action='readwrite', form='formatted')
        call ovk_solver_view(s, ierr, unit=u)
        call check(ierr == OVK_OK, 'view: '//ovk_error_detail())
        rewind (u)
        seen = .false.
        i = 0
        do
            read (u, '(a)', iostat=ios) line
            if (ios /= 0) exit
            i = i + 1
            if (i == 1) call check(index(line, 'ovk_solver:') == 1, 'view, first line: '//trim(line))
            if (index(line, 'backend: nbc') > 0) seen = .true.
            if (index(line, 'solver: ') > 0 .and. index(line, 'solver: ') < 4) &
                call check(index(line, 'solver: pipecg') > 0, 'view: the variant: '//trim(line))
        end do
        close (u)
        call check(i > 5 .and. seen, 'view: several lines with "backend: nbc"')
        if (rank == 0) call ovk_solver_view(s, ierr) ! on output_unit
        call check(ierr == OVK_OK, 'view on output_unit')

        ! ---- a bad value on one rank: OVK_EOPTION on every rank ----
        bad = [character(len=24) :: '-ovk_max_it', '50']
        if (rank == nranks - 1) bad(2) = 'many'
        call ovk_options_set_args(ierr, args=bad)
        call ovk_solver_set_from_options(s, ierr)
        call check(ierr == OVK_EOPTION, 'a bad -ovk_max_it on the last rank: OVK_EOPTION everywhere ('// &
            ovk_status_name(ierr)//')')
        if (rank == nranks - 1) call check(index(ovk_error_detail(), '-ovk_max_it') > 0, 'bad value: '// &
            ovk_error_detail())

        ! ---- -ovk_options_left at finalize; clear ----
        call ovk_options_set_args(ierr, args=[character(len=24) :: '-ovk_options_left', '-ovk_precnd', 'ic0'])
        call ovk_options_finalize(ierr, left=nval)
        call check(ierr == OVK_OK .and. nval == merge(4, 1, env_case), 'finalize: the misspelt entry left')
        call ovk_options_set_args(ierr, args=words)
        call ovk_options_clear()
        call ovk_options_get('-n', nval, found, ierr)
        call check(ierr == OVK_OK .and. .not. found, 'cleared: -n is gone')
        call ovk_options_clear()

        ! ---- a convergence test with a context: stops where it says ----
        call ovk_solver_create(A, sc, ierr, solver='alg1', precond='none', tol=1d-14)
        cd%stop_at = 7
        call ovk_solver_set_convergence_test(sc, stop_when_told, ierr, ctx=c_loc(cd))
        call check(ierr == OVK_OK, 'set_convergence_test')
        x = 0
        call ovk_solver_solve(sc, b, x, res, ierr)
        call check(ierr == OVK_OK .and. res%reason == OVK_REASON_CONVERGED .and. res%iterations == 7, &
            'alg1: the test''s converged at 7 counts as converged')
        call check(cd%last == 7 .and. cd%calls == 8, 'the test called at iterations 0..7')
        call check(abs(cd%bnorm - sqrt(real(N, real64))) < 1d-12 * cd%bnorm .and. cd%rnorm0 == cd%bnorm, &
            'the test gets ||b|| and ||r0|| (x0 = 0)')
        call ovk_solver_set_option(sc, 'solver', 'pipecg', ierr)
        cd%stop_at = 5
        cd%calls = 0
        x = 0
        call ovk_solver_solve(sc, b, x, res, ierr)
        call check(ierr == OVK_OK .and. res%reason == OVK_REASON_CONVERGED .and. res%iterations == 5, &
            'pipecg: the test''s converged at 5')
        cd%verdict = OVK_VERDICT_DIVERGED
        cd%stop_at = 4
        x = 0
        call ovk_solver_solve(sc, b, x, res, ierr)
        call check(ierr == OVK_EDIVERGED .and. res%reason == OVK_REASON_DIVERGED .and. res%iterations == 4, &
            'the test''s diverged at 4: OVK_EDIVERGED ('//ovk_status_name(ierr)//')')
        call ovk_solver_set_convergence_test(sc, ierr=ierr)
        call ovk_solver_set_option(sc, 'rtol', 1d-10, ierr)
        cd%calls = 0
        x = 0
        call ovk_solver_solve(sc, b, x, res, ierr)
        call check(ierr == OVK_OK .and. cd%calls == 0 .and. res%rel_residual < 1d-10 .and. res%iterations > 7, &
            'the test removed: rtol ('//ovk_status_name(ierr)//')')

        ! ---- divtol: the first iteration whose ||r|| exceeds divtol ||r0|| ----
        call ovk_solver_create(A, sd, ierr, solver='alg1', precond='none', tol=1d-12)
        call ovk_solver_set_history(sd, hist, ierr)
        x = 0
        call ovk_solver_solve(sd, b, x, res, ierr)
        len = res%history_len
        peak = maxval(hist(0:len - 1)) / hist(0)
        call check(ierr == OVK_OK .and. peak > 1, 'the residual grows somewhere (divtol has something to stop)')
        if (peak > 1) then
            divtol = 1 + 0.5d0 * (peak - 1)
            want = 0
            do while (hist(want) <= divtol * hist(0))
                want = want + 1
            end do
            call ovk_solver_set_option(sd, 'divtol', divtol, ierr)
            x = 0
            call ovk_solver_solve(sd, b, x, res, ierr)
            call check(ierr == OVK_EDIVERGED .and. res%reason == OVK_REASON_DIVERGED .and. res%iterations == want, &
                'divtol: OVK_EDIVERGED at the first norm above divtol ||r0|| ('//ovk_status_name(ierr)//')')
        end if

        ! ---- a NaN in b on the last rank: reported at its 1-based row ----
        if (rank == nranks - 1) b(nlocal) = ieee_value(1d0, ieee_quiet_nan)
        x = 0
        call ovk_solver_solve(sd, b, x, res, ierr)
        call check(ierr == OVK_ENONFINITE, 'NaN in b on the last rank: OVK_ENONFINITE everywhere')
        if (rank == nranks - 1) then
            write (line, '(a,i0,a)') 'b at row ', first + nlocal - 1, ' is nan'
            call check(index(ovk_error_detail(), trim(line)) > 0, 'NaN in b: the 1-based row: '//ovk_error_detail())
        end if

        ! ---- the constants are the library's, the solver types ----
        do i = 1, size(codes)
            call check(ovk_status_name(codes(i)) == trim(code_names(i)), 'the module''s '//trim(code_names(i))// &
                ' is the library''s code of that name ('//ovk_status_name(codes(i))//')')
        end do
        call check(ovk_status_name(OVK_ESTAGNATED - 1) == 'OVK_UNKNOWN', 'no code past OVK_ESTAGNATED')
        do i = 1, size(reasons)
            call check(ovk_reason_name(reasons(i)) == trim(reason_names(i)), 'reason '//trim(reason_names(i)))
        end do
        call check(ovk_solver_type_count() >= 8, 'solver types: at least 8')
        call check(ovk_solver_type_name(1) == 'alg1', 'solver types numbered from 1: alg1 first')
        call check(ovk_solver_type_name(0) == '', 'no solver type 0')
        call check(ovk_solver_type_name(ovk_solver_type_count() + 1) == '', 'no solver type past the count')
        seen = .false.
        do i = 1, ovk_solver_type_count()
            if (ovk_solver_type_name(i) == 'pipeprcg') seen = len_trim(ovk_solver_type_description(i)) > 0
        end do
        call check(seen, 'pipeprcg among the solver types, with a description')

        call ovk_solver_destroy(s)
        call ovk_solver_destroy(sp)
        call ovk_solver_destroy(sc)
        call ovk_solver_destroy(sd)
    end subroutine options_tests

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
