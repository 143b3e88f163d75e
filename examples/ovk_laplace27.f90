!> ovk_laplace27_f: the 27-point Laplace driver of ovk_laplace27, written in
!> Fortran through the ovkrylov module.  It assembles the rank's rows of
!> hypre's GenerateLaplacian27pt matrix itself (1-based global CSR, 64-bit
!> ids): every rank owns an nx x ny x nz box of a (px*nx) x (py*ny) x
!> (pz*nz) grid, numbered box by box, x fastest; diagonal 26, neighbours
!> -1, Dirichlet boundaries.  b = 1, x0 = 0.  Prints on rank 0, as
!> ovk_laplace27 does,
!>   Iterations = N
!>   Final Relative Residual Norm = R
!>   Solve Time = T s
!> and exits 0 when the solve converged, 1 when it did not or failed, 2 on
!> bad usage.
!> Output of the driver: the residual line of the monitor (-print_level 2)
!> and C's "%e" format, so that the lines match ovk_laplace27's.
module laplace27_output
    use, intrinsic :: ieee_arithmetic, only: ieee_is_finite, ieee_is_nan
    use, intrinsic :: iso_fortran_env, only: output_unit, real64
    use, intrinsic :: iso_c_binding, only: c_ptr
    use mpi_f08, only: MPI_Comm_rank
    use ovkrylov, only: ovk_solver, ovk_solver_comm
    implicit none
    private
    public :: print_residual, c_style_e

contains

    !> The monitor (ovk_monitor_fn): rank 0 prints every iteration's relative
    !> residual; never stops the solve.
    logical function print_residual(s, iteration, rnorm, rel, ctx)
        type(ovk_solver), intent(in) :: s
        integer, intent(in) :: iteration
        real(real64), intent(in) :: rnorm, rel
        type(c_ptr), intent(in) :: ctx
        integer :: rank
        call MPI_Comm_rank(ovk_solver_comm(s), rank)
        if (rank == 0 .and. rnorm >= 0) write (output_unit, '(a,i5,a,a)') 'Iter ', iteration, &
            '  ||r||/||b|| = ', c_style_e(rel)
        print_residual = .false.
    end function print_residual

    !> x as C's printf("%e"): d.dddddde+XX, at least two exponent digits.
    function c_style_e(x) result(text)
        real(real64), intent(in) :: x
        character(len=:), allocatable :: text
        character(len=40) :: buf
        integer :: e, expo
        if (ieee_is_nan(x)) then
            text = 'nan'
            return
        end if
        if (.not. ieee_is_finite(x)) then
            text = merge('-inf', ' inf', x < 0)
            text = trim(adjustl(text))
            return
        end if
        write (buf, '(es40.6e4)') x
        buf = adjustl(buf)
        e = index(buf, 'E')
        read (buf(e + 1:), *) expo
        write (buf(e:), '(a,sp,i0.2)') 'e', expo
        text = trim(buf)
    end function c_style_e

end module laplace27_output

program ovk_laplace27_f
    use, intrinsic :: iso_fortran_env, only: error_unit, int64, output_unit, real64
    use mpi_f08
    use ovkrylov
    use laplace27_output, only: c_style_e, print_residual
    implicit none

    integer :: n(3), P(3), maxit, print_level, rank, nranks, status, provided, ierr_opts
    real(real64) :: tol, atol
    character(len=256) :: solver, backend, precond, bad ! fixed length: nothing to free at the end
    logical :: help

    n = 40
    P = 0
    maxit = 1000
    print_level = 0
    tol = 1d-8
    atol = 0
    solver = 'alg1'
    backend = ''
    precond = ''
    help = .false.
    status = 0

    ! A backend with a thread of its own needs MPI_THREAD_MULTIPLE (as in ovk_laplace27).
    if (wants_threads()) then
        call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
    else
        call MPI_Init()
    end if
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    call MPI_Dims_create(nranks, 3, P)
    ! the library's options database: -ovk_* words of the command line and $OVK_OPTIONS
    call ovk_options_set_args(ierr_opts)
    if (ierr_opts /= OVK_OK .and. rank == 0) write (error_unit, '(a)') 'ovk_laplace27_f: ovk options: '// &
        trim(ovk_error_detail())

    call parse_args(bad)
    if (len_trim(bad) > 0) then
        if (rank == 0) then
            write (error_unit, '(a)') 'ovk_laplace27_f: bad or unknown flag: '//trim(bad)
            call usage(error_unit)
        end if
        status = 2
    else if (help) then
        if (rank == 0) call usage(output_unit)
    else if (any(n < 1)) then
        if (rank == 0) write (error_unit, '(a)') 'ovk_laplace27_f: -n values must be >= 1'
        status = 2
    else if (any(P < 1) .or. int(P(1), int64) * P(2) * P(3) /= nranks) then
        if (rank == 0) write (error_unit, '(a,3(1x,i0),a,i0,a)') 'ovk_laplace27_f: -P', P, &
            ' does not match the ', nranks, ' running ranks'
        status = 2
    else
        status = run()
    end if
    call ovk_options_finalize(ierr_opts) ! -ovk_options_left
    call MPI_Finalize()
    if (status /= 0) stop status, quiet = .true.

contains

    !> Assemble, set up, solve; the exit status.
    integer function run()
        type(ovk_matrix) :: A
        type(ovk_solver) :: s
        type(ovk_result) :: res
        integer, allocatable :: rowptr(:)
        integer(int64), allocatable :: cols(:)
        real(real64), allocatable :: vals(:), b(:), x(:)
        integer :: ierr, ignored
        integer(int64) :: first_row
        character(len=:), allocatable :: chosen

        call laplace27_rows(first_row, rowptr, cols, vals)
        call ovk_matrix_create_csr(MPI_COMM_WORLD, first_row, rowptr, cols, vals, A, ierr, dups=OVK_DUP_REJECT)
        deallocate (rowptr, cols, vals) ! the matrix has its own copy
        if (ierr == OVK_OK) call ovk_solver_create(A, s, ierr, solver=trim(solver), rtol=tol, atol=atol, max_it=maxit)
        if (ierr == OVK_OK .and. len_trim(backend) > 0) call ovk_solver_set_option(s, 'backend', backend, ierr)
        if (ierr == OVK_OK .and. len_trim(precond) > 0) call ovk_solver_set_option(s, 'precond', precond, ierr)
        if (ierr == OVK_OK .and. print_level >= 1) call ovk_solver_set_option(s, 'print_level', 1, ierr)
        if (ierr == OVK_OK .and. print_level >= 2) call ovk_solver_set_monitor(s, print_residual, ierr)
        ! the options were set locally: agree before the collective setup
        call MPI_Allreduce(MPI_IN_PLACE, ierr, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
        ! -ovk_* override the flags above (collective; the status is agreed)
        if (ierr == OVK_OK) call ovk_solver_set_from_options(s, ierr)
        if (ierr == OVK_OK) call ovk_solver_get_option(s, 'solver', chosen, ierr)
        if (ierr == OVK_OK) solver = chosen
        if (ierr == OVK_OK) then
            if (rank == 0 .and. print_level >= 1) &
                write (output_unit, '(a,3(i0,a),i0,a,i0,a,3(i0,a),a)') 'ovk_laplace27_f: 27-point Laplacian, '// &
                'global grid ', int(n(1), int64) * P(1), ' x ', int(n(2), int64) * P(2), ' x ', &
                int(n(3), int64) * P(3), ' (', ovk_matrix_nglobal(A), ' rows), ', nranks, ' ranks (', P(1), ' x ', &
                P(2), ' x ', P(3), '), solver ', trim(solver)
            call ovk_solver_setup(s, ierr)
        end if
        if (ierr == OVK_OK) then
            allocate (b(ovk_matrix_nlocal(A)), x(ovk_matrix_nlocal(A)))
            b = 1
            x = 0
            call ovk_solver_solve(s, b, x, res, ierr)
            if (rank == 0 .and. print_level >= 1) &
                write (output_unit, '(a,a,a)') 'Setup Time = ', fixed6(ovk_solver_setup_time(s)), ' s'
            if (rank == 0 .and. res%reason /= OVK_REASON_NONE) then
                write (output_unit, '(a,i0)') 'Iterations = ', res%iterations
                write (output_unit, '(a,a)') 'Final Relative Residual Norm = ', c_style_e(res%rel_residual)
                write (output_unit, '(a,a,a)') 'Solve Time = ', fixed6(res%time_max(OVK_TIMER_SOLVE)), ' s'
            end if
        end if
        if (ierr /= OVK_OK .and. rank == 0) &
            write (error_unit, '(a)') 'ovkrylov error: '//ovk_strerror(ierr)//': '//ovk_error_detail()
        run = merge(0, 1, ierr == OVK_OK)
        call ovk_solver_destroy(s, ignored)
        call ovk_matrix_destroy(A)
    end function run

    !> This rank's rows of the 27-point Laplacian, 1-based global CSR.
    subroutine laplace27_rows(first_row, rowptr, cols, vals)
        integer(int64), intent(out) :: first_row
        integer, allocatable, intent(out) :: rowptr(:)
        integer(int64), allocatable, intent(out) :: cols(:)
        real(real64), allocatable, intent(out) :: vals(:)
        integer(int64) :: g(3), lo(3), pt(3), nb(3), box
        integer :: i, j, k, dx, dy, dz, row, nnz, flat
        real(real64) :: diag
        g = int(n, int64) * P
        box = int(n(1), int64) * n(2) * n(3)
        ! the rank's place in the process grid, x fastest
        lo = int(n, int64) * [mod(rank, P(1)), mod(rank / P(1), P(2)), rank / (P(1) * P(2))]
        ! hypre's ij: 26 on the diagonal, 8 on a flat grid, 2 on a line
        flat = count(g == 1)
        diag = merge(26d0, merge(8d0, 2d0, flat == 1), flat == 0)
        first_row = rank * box + 1
        allocate (rowptr(box + 1), cols(27 * box), vals(27 * box))
        rowptr(1) = 1
        row = 0
        nnz = 0
        do k = 0, n(3) - 1
            do j = 0, n(2) - 1
                do i = 0, n(1) - 1
                    pt = lo + [i, j, k]
                    do dz = -1, 1
                        do dy = -1, 1
                            do dx = -1, 1
                                nb = pt + [dx, dy, dz]
                                if (any(nb < 0) .or. any(nb >= g)) cycle
                                nnz = nnz + 1
                                cols(nnz) = global_row(nb)
                                vals(nnz) = merge(diag, -1d0, dx == 0 .and. dy == 0 .and. dz == 0)
                            end do
                        end do
                    end do
                    row = row + 1
                    rowptr(row + 1) = nnz + 1
                end do
            end do
        end do
    end subroutine laplace27_rows

    !> 1-based global row of the grid point pt (0-based coordinates): the
    !> owner's rows come after those of the lower ranks.
    integer(int64) function global_row(pt)
        integer(int64), intent(in) :: pt(3)
        integer(int64) :: owner(3), local(3)
        owner = pt / n
        local = pt - owner * n
        global_row = (owner(1) + P(1) * (owner(2) + P(2) * owner(3))) * (int(n(1), int64) * n(2) * n(3)) &
            + local(1) + n(1) * (local(2) + n(2) * local(3)) + 1
    end function global_row

    !> Read the flags; bad is the offending one, or "".
    subroutine parse_args(bad)
        character(len=*), intent(out) :: bad
        character(len=:), allocatable :: flag
        integer :: i, nargs, ios, out1(1)
        bad = ''
        nargs = command_argument_count()
        i = 1
        do while (i <= nargs)
            flag = argument(i)
            ios = 0
            select case (flag)
            case ('-n', '-P')
                if (i + 3 > nargs) then
                    ios = 1
                else if (flag == '-n') then
                    call read_ints(i, n, ios)
                else
                    call read_ints(i, P, ios)
                end if
                i = i + 3
            case ('-solver', '-backend', '-precond', '-tol', '-atol', '-maxit', '-print_level')
                if (i + 1 > nargs) then
                    ios = 1
                else if (len(argument(i + 1)) > len(solver)) then
                    ios = 1 ! longer than any spec the library takes
                else if (flag == '-solver') then
                    solver = argument(i + 1)
                else if (flag == '-backend') then
                    backend = argument(i + 1)
                else if (flag == '-precond') then
                    precond = argument(i + 1)
                else if (flag == '-tol') then
                    call read_real(i, tol, ios)
                else if (flag == '-atol') then
                    call read_real(i, atol, ios)
                else if (flag == '-maxit') then
                    call read_ints(i, out1, ios)
                    maxit = out1(1)
                else
                    call read_ints(i, out1, ios)
                    print_level = out1(1)
                end if
                i = i + 1
            case ('-help', '--help')
                help = .true.
            case default
                if (index(flag, 'ovk_') > 1 .and. flag(1:1) == '-') then
                    ! the library's option (read by ovk_solver_set_from_options) and its value
                    if (i + 1 <= nargs) then
                        if (.not. is_name(argument(i + 1))) i = i + 1
                    end if
                else
                    ios = 1
                end if
            end select
            if (ios /= 0) then
                bad = flag
                return
            end if
            i = i + 1
        end do
    end subroutine parse_args

    !> The integers of arguments i+1 .. i+size(out); ios /= 0 when one is not.
    subroutine read_ints(i, out, ios)
        integer, intent(in) :: i
        integer, intent(inout) :: out(:)
        integer, intent(out) :: ios
        character(len=:), allocatable :: text
        integer :: k
        ios = 0
        do k = 1, size(out)
            text = argument(i + k)
            if (verify(text, '-0123456789') /= 0 .or. len(text) == 0 .or. len(text) > 10) then
                ios = 1
                return
            end if
            read (text, *, iostat=ios) out(k)
            if (ios /= 0) return
        end do
    end subroutine read_ints

    !> The real of argument i+1; ios /= 0 when it is not one.
    subroutine read_real(i, out, ios)
        integer, intent(in) :: i
        real(real64), intent(inout) :: out
        integer, intent(out) :: ios
        character(len=:), allocatable :: text
        text = argument(i + 1)
        ios = 0
        if (verify(text, '+-.0123456789eEdD') /= 0 .or. len(text) == 0) then
            ios = 1
            return
        end if
        read (text, *, iostat=ios) out
    end subroutine read_real

    !> A word that names an option: '-' and more, not a number ('-1', '-.5e3').
    logical function is_name(word)
        character(len=*), intent(in) :: word
        is_name = .false.
        if (len(word) < 2) return
        if (word(1:1) /= '-') return
        is_name = verify(word(2:2), '0123456789.') /= 0
    end function is_name

    !> Command-line argument i.
    function argument(i) result(arg)
        integer, intent(in) :: i
        character(len=:), allocatable :: arg
        integer :: length
        call get_command_argument(i, length=length)
        allocate (character(len=length) :: arg)
        call get_command_argument(i, arg)
    end function argument

    !> A backend spec with a thread of its own on the command line or in
    !> $OVK_REDUCE_BACKEND.
    logical function wants_threads()
        character(len=512) :: env
        integer :: i
        call get_environment_variable('OVK_REDUCE_BACKEND', env)
        wants_threads = needs(env)
        do i = 1, command_argument_count()
            if (needs(argument(i))) wants_threads = .true.
        end do
    end function wants_threads

    logical function needs(spec)
        character(len=*), intent(in) :: spec
        needs = index(spec, 'thread=1') > 0 .or. index(spec, 'engine=agent') > 0
    end function needs

    subroutine usage(unit)
        integer, intent(in) :: unit
        character(len=:), allocatable :: solvers, preconds
        integer :: i
        solvers = ''
        do i = 1, ovk_solver_type_count()
            solvers = solvers // ' ' // ovk_solver_type_name(i)
        end do
        preconds = ''
        do i = 1, ovk_precond_type_count()
            preconds = preconds // ' ' // ovk_precond_type_name(i)
        end do
        write (unit, '(a)') 'usage: ovk_laplace27_f [flags]', &
            '  -n nx ny nz          grid points per process (default 40 40 40)', &
            '  -P px py pz          process grid (default: balanced, MPI_Dims_create)', &
            '  -solver NAME         solver (default alg1):' // solvers, &
            '  -backend SPEC        reduction backend name[:key=value,...] (default: $OVK_REDUCE_BACKEND', &
            '                       or blocking)', &
            '  -precond SPEC        preconditioner name[:key=value,...] (default jacobi):' // preconds, &
            '  -tol T               relative residual tolerance (default 1e-8)', &
            '  -atol A              absolute tolerance: converged when ||r|| < max(tol ||b||, A) (0)', &
            '  -maxit N             iteration limit (default 1000)', &
            '  -print_level 0|1|2   2: residual every iteration (through the monitor)', &
            '  -ovk_KEY VALUE       any solver option through the library''s options database', &
            '                       (-ovk_solver, -ovk_precond, -ovk_rtol, -ovk_view, ...; also', &
            '                       $OVK_OPTIONS); overrides the flags above (docs/options.md)', &
            '  -help                this text'
    end subroutine usage

    !> x as C's printf("%.6f").
    function fixed6(x) result(text)
        real(real64), intent(in) :: x
        character(len=:), allocatable :: text
        character(len=40) :: buf
        write (buf, '(f40.6)') x
        text = trim(adjustl(buf))
    end function fixed6

end program ovk_laplace27_f
