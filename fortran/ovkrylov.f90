!> What a solve reports (the C struct ovk_result) and the indices of its time
!> breakdown, in a module of their own so that module ovkrylov can give the
!> type its deprecated name of 0.2 too (ovk_pcg_result, the same type).
module ovkrylov_result
    use, intrinsic :: iso_c_binding, only: c_char, c_double, c_int, c_long_long, c_null_char
    implicit none
    private

    ! ---- the time breakdown: indices of ovk_result%time_max(0:) ------
    integer, parameter, public :: OVK_TIMER_MATVEC = 0, OVK_TIMER_PRECOND = 1, OVK_TIMER_AXPY = 2, &
        OVK_TIMER_SCALE = 3, OVK_TIMER_SDOTP_INIT = 4, OVK_TIMER_SDOTP_TEST = 5, &
        OVK_TIMER_SDOTP_WAIT = 6, OVK_TIMER_GAMMA_INIT = 7, OVK_TIMER_GAMMA_TEST = 8, &
        OVK_TIMER_GAMMA_WAIT = 9, OVK_TIMER_IPROD_INIT = 10, OVK_TIMER_IPROD_TEST = 11, &
        OVK_TIMER_IPROD_WAIT = 12, OVK_TIMER_SOLVE = 13, OVK_TIMER_COUNT = 14

    !> The outcome of a solve, whatever the solver (the C struct ovk_result, field for field).
    type, bind(C), public :: ovk_result
        integer(c_int) :: iterations = 0          !< iterations done
        real(c_double) :: rel_residual = 0        !< final ||r|| / ||b||
        integer(c_int) :: reason = 0              !< OVK_REASON_*
        integer(c_long_long) :: reductions = 0    !< global reductions started
        real(c_double) :: time_max(0:OVK_TIMER_COUNT - 1) = 0  !< seconds, max over ranks
        real(c_double) :: time_mean(0:OVK_TIMER_COUNT - 1) = 0 !< seconds, mean over ranks
        real(c_double) :: lambda_min = 0, lambda_max = 0, cond_est = 0 !< option condest = 1
        integer(c_int) :: replacements = 0        !< cg1, pipecg residual replacements
        integer(c_int) :: restarts = 0            !< cg1, pipecg restarts
        integer(c_int) :: history_len = 0
        real(c_double) :: auto_latency_us = 0, auto_work_us = 0 !< solver auto: what it measured (us)
        character(kind=c_char) :: auto_choice(32) = c_null_char  !< solver auto: the variant it chose
        real(c_double) :: nullspace_inconsistency = 0 !< with a null space: ||Z^T b|| / ||b||
        real(c_double) :: rhs_norm = 0            !< ||b||, the norm rel_residual is relative to
    end type ovk_result
end module ovkrylov_result

!> ovkrylov: the Fortran 2008 interface of the ovkrylov library (MPI PCG
!> solvers that hide the latency of global reductions).
!>
!>     use mpi_f08
!>     use ovkrylov
!>     type(ovk_matrix) :: A
!>     type(ovk_solver) :: s
!>     type(ovk_result) :: res
!>     call ovk_matrix_create_csr(MPI_COMM_WORLD, first_row, rowptr, cols, vals, A, ierr)
!>     call ovk_options_set_args(ierr)   ! once, after MPI_Init: the command line's -ovk_* options
!>     call ovk_solver_create(A, s, ierr, solver='pipecg', precond='ic0', backend='nbc', rtol=1d-8)
!>     call ovk_solver_set_from_options(s, ierr)           ! collective: -ovk_solver pipeprcg ... win
!>     call ovk_solver_setup(s, ierr)                      ! collective, optional (the solve sets up)
!>     call ovk_solver_solve(s, b, x, res, ierr)           ! b, x: this rank's rows
!>     if (ierr /= OVK_OK) print *, ovk_strerror(ierr), ': ', ovk_error_detail()
!>     call ovk_solver_destroy(s);  call ovk_matrix_destroy(A)
!>
!> Conventions of the module:
!>
!> * Communicators are mpi_f08's type(MPI_Comm); the module hands their
!>   MPI_VAL to the library, which converts it with MPI_Comm_f2c.  With
!>   `use mpi` (integer handles) set `comm%MPI_VAL = icomm`.
!> * Handles: type(ovk_matrix), type(ovk_vector), type(ovk_solver),
!>   type(ovk_reducer) and type(ovk_request) hold the library's objects.
!>   Make them with the *_create routines (requests: ovk_reduce_start,
!>   ovk_dot_init) and free them with the *_destroy routines (requests: the
!>   waits; collective for matrices, solvers and reducers);
!>   an assignment copies the handle, not the object, so destroy one copy
!>   only.  The library keeps a duplicate of the communicator: destroy
!>   matrices and solvers before MPI_Finalize.
!> * Status: every routine that can fail has `integer, intent(out),
!>   optional :: ierr`, its first optional argument (so that it can be given
!>   by position, as in MPI: `call ovk_solver_setup(s, ierr)`); further
!>   optional arguments go by keyword.  ierr receives OVK_OK (0) or a
!>   negative OVK_E* code; ovk_strerror(ierr) names it and
!>   ovk_error_detail() says which row, option or argument was wrong.
!>   Collective routines give the same ierr on every rank.  When ierr is
!>   absent and the status is not OVK_OK, the routine prints
!>   "ovkrylov: rank R: ROUTINE: message: detail" on error_unit and calls
!>   MPI_Abort(MPI_COMM_WORLD, 1), as MPI's default handler
!>   MPI_ERRORS_ARE_FATAL does.  A solve that stops without converging
!>   (OVK_EMAXIT, OVK_EBREAKDOWN, OVK_ENONFINITE, OVK_ESTOPPED) is such a
!>   status too: pass ierr to go on after one.
!> * Indices are 1-based by default: the first row of the rank, the column
!>   ids (global) and rowptr, the usual Fortran CSR (row i's entries are
!>   cols(rowptr(i):rowptr(i+1)-1), rowptr(1) = 1 typically).  `base=0`
!>   takes the C library's 0-based ids and offsets (rowptr(1) = 0, row i's
!>   entries at positions rowptr(i)+1 .. rowptr(i+1) of cols).  The row and
!>   column ids are integer(int32) or integer(int64) (both the same kind);
!>   rowptr is a default integer array of nlocal+1 entries.
!> * Reals are real(c_double) (real(real64) on every compiler we know).
!> * Callbacks (operator, preconditioner, monitor, convergence test:
!>   ovk_apply_fn, ovk_monitor_fn, ovk_converged_fn) get the solver running them, this rank's rows as
!>   x(n), y(n), and a type(c_ptr) context.  What the library keeps and
!>   uses later, so it must stay valid: the context (c_loc of a TARGET
!>   variable that outlives the solver's use of the callback), the history
!>   array (ovk_solver_set_history), the buffers of a reduction in flight
!>   (TARGET, ASYNCHRONOUS), a reducer given to ovk_solver_set_reducer.  The
!>   module keeps the procedures in a record the solver handle owns (made
!>   by the first callback, freed by ovk_solver_destroy): set callbacks and
!>   destroy through the same handle variable.
!> * Failure details count rows and columns in the matrix's base (1
!>   unless base=0; an operator solver's rows from 1).  Solver types
!>   (ovk_solver_type_name) are numbered from 1.
!> * ovkrylov.mod is read only by the compiler that wrote it:
!>   OVK_MODULE_COMPILER names it, and so does the installed package.
!> docs/fortran.md lists what is bound and how the C calls map.
module ovkrylov
    use, intrinsic :: iso_c_binding, only: c_associated, c_char, c_double, c_f_pointer, c_funloc, &
        c_funptr, c_int, c_int64_t, c_intptr_t, c_loc, c_long_long, c_null_char, c_null_funptr, c_null_ptr, &
        c_ptr, c_size_t, c_sizeof
    use, intrinsic :: iso_fortran_env, only: compiler_version, error_unit, int32, int64, output_unit
    use mpi_f08, only: MPI_Abort, MPI_Comm, MPI_COMM_WORLD, MPI_Comm_rank, MPI_Initialized, &
        MPI_Finalized
    use ovkrylov_result, only: ovk_result, ovk_pcg_result => ovk_result, OVK_TIMER_MATVEC, OVK_TIMER_PRECOND, &
        OVK_TIMER_AXPY, OVK_TIMER_SCALE, OVK_TIMER_SDOTP_INIT, OVK_TIMER_SDOTP_TEST, OVK_TIMER_SDOTP_WAIT, &
        OVK_TIMER_GAMMA_INIT, OVK_TIMER_GAMMA_TEST, OVK_TIMER_GAMMA_WAIT, OVK_TIMER_IPROD_INIT, &
        OVK_TIMER_IPROD_TEST, OVK_TIMER_IPROD_WAIT, OVK_TIMER_SOLVE, OVK_TIMER_COUNT
    implicit none
    private
    ! ovk_pcg_result: deprecated name of ovk_result (the same type), for one release
    public :: ovk_result, ovk_pcg_result, OVK_TIMER_MATVEC, OVK_TIMER_PRECOND, OVK_TIMER_AXPY, OVK_TIMER_SCALE, &
        OVK_TIMER_SDOTP_INIT, OVK_TIMER_SDOTP_TEST, OVK_TIMER_SDOTP_WAIT, OVK_TIMER_GAMMA_INIT, &
        OVK_TIMER_GAMMA_TEST, OVK_TIMER_GAMMA_WAIT, OVK_TIMER_IPROD_INIT, OVK_TIMER_IPROD_TEST, &
        OVK_TIMER_IPROD_WAIT, OVK_TIMER_SOLVE, OVK_TIMER_COUNT

    !> The compiler (and version) this module was compiled with: only that
    !> compiler reads ovkrylov.mod (also in the installed package:
    !> ovkrylov-fortran.pc's fcompiler_id/fcompiler_version, CMake's
    !> ovkrylov_Fortran_COMPILER_ID/_VERSION).
    character(len=*), parameter, public :: OVK_MODULE_COMPILER = compiler_version()

    ! ---- status codes (error.h) ------------------------------------------
    integer, parameter, public :: OVK_OK = 0
    integer, parameter, public :: OVK_EINVAL = -1        !< invalid argument
    integer, parameter, public :: OVK_ENOMEM = -2        !< allocation failed
    integer, parameter, public :: OVK_EMPI = -3          !< an MPI call failed
    integer, parameter, public :: OVK_EPARTITION = -4    !< row ranges do not tile the global range
    integer, parameter, public :: OVK_ECOLUMN = -5       !< a column id is out of range
    integer, parameter, public :: OVK_EMISMATCH = -6     !< layouts or communicators differ
    integer, parameter, public :: OVK_EZERODIAG = -7     !< zero, negative or missing diagonal
    integer, parameter, public :: OVK_EFILE = -8         !< a file cannot be opened or read
    integer, parameter, public :: OVK_EFORMAT = -9       !< malformed input file
    integer, parameter, public :: OVK_ENOTSYM = -10      !< a matrix that must be symmetric is not
    integer, parameter, public :: OVK_EBACKEND = -11     !< unknown reduction backend
    integer, parameter, public :: OVK_EOPTION = -12      !< unknown option or bad option value
    integer, parameter, public :: OVK_EUNSUPPORTED = -13 !< not available in this build or MPI
    integer, parameter, public :: OVK_ESTATE = -14       !< used in the wrong state (e.g. not set up)
    integer, parameter, public :: OVK_EBUSY = -15        !< request in flight, or object in use by a solve
    integer, parameter, public :: OVK_EBREAKDOWN = -16   !< Krylov breakdown
    integer, parameter, public :: OVK_ENONFINITE = -17   !< NaN or Inf in the input or iteration
    integer, parameter, public :: OVK_EMAXIT = -18       !< iteration limit reached
    integer, parameter, public :: OVK_ECALLBACK = -19    !< a user callback failed
    integer, parameter, public :: OVK_ESTOPPED = -20     !< the monitor stopped the solve
    integer, parameter, public :: OVK_EPRECOND = -21     !< preconditioner setup failed
    integer, parameter, public :: OVK_EDIVERGED = -22    !< diverged (divtol or the convergence test)
    integer, parameter, public :: OVK_ESTAGNATED = -23   !< the true residual stagnated above the tolerance
    ! (src/bind/fortran.c refuses to compile when error.h's list no longer
    ! has these 24 codes: add a new one here and there.)

    ! ---- why a solve stopped (ovk_result%reason) ----------------------
    integer, parameter, public :: OVK_REASON_NONE = 0       !< the solve did not run
    integer, parameter, public :: OVK_REASON_CONVERGED = 1
    integer, parameter, public :: OVK_REASON_MAXIT = 2
    integer, parameter, public :: OVK_REASON_BREAKDOWN = 3
    integer, parameter, public :: OVK_REASON_NONFINITE = 4
    integer, parameter, public :: OVK_REASON_MONITOR = 5    !< the monitor asked to stop
    integer, parameter, public :: OVK_REASON_DIVERGED = 6   !< divtol, or the convergence test's verdict
    integer, parameter, public :: OVK_REASON_STAGNATED = 7  !< the true residual stagnated above the tolerance

    ! ---- the convergence test's verdict (ovk_converged_fn) -----------------
    integer, parameter, public :: OVK_VERDICT_CONTINUE = 0  !< iterate on (max_it still stops)
    integer, parameter, public :: OVK_VERDICT_CONVERGED = 1 !< stop: converged (OVK_OK)
    integer, parameter, public :: OVK_VERDICT_DIVERGED = 2  !< stop: OVK_EDIVERGED

    ! ---- repeated (row, column) pairs in ovk_matrix_create_csr -----------
    integer, parameter, public :: OVK_DUP_SUM = 0     !< add them (the default)
    integer, parameter, public :: OVK_DUP_REJECT = 1  !< fail with OVK_EINVAL

    ! ---- ovk_convdiff_create's differences for the convection term ------
    integer, parameter, public :: OVK_CONVDIFF_UPWIND = 0, OVK_CONVDIFF_CENTRAL = 1

    ! ---- reductions (reduce.h): operations, the largest ovk_dot_init ------
    integer, parameter, public :: OVK_SUM = 0, OVK_MAX = 1, OVK_MIN = 2
    integer, parameter, public :: OVK_DOT_MAX = 16

    !> A distributed CSR matrix (rows split over the ranks).
    type, public :: ovk_matrix
        private
        type(c_ptr) :: ptr = c_null_ptr
    end type ovk_matrix

    !> This rank's part of a distributed vector: owned by the library, or
    !> wrapping an array of the caller (ovk_vector_wrap).
    type, public :: ovk_vector
        private
        type(c_ptr) :: ptr = c_null_ptr
    end type ovk_vector

    !> The solver object: set up once, solve many times.
    type, public :: ovk_solver
        private
        type(c_ptr) :: ptr = c_null_ptr
        type(callback_box), pointer :: cb => null() ! its Fortran callbacks (see callback_box)
    end type ovk_solver

    !> A reduction backend bound to a communicator (reduce.h): made from a
    !> spec "name[:key=value,...]", handed to solvers (ovk_solver_set_reducer)
    !> and used by the split-phase reductions and dot products below.
    type, public :: ovk_reducer
        private
        type(c_ptr) :: ptr = c_null_ptr
    end type ovk_reducer

    !> A reduction in flight (ovk_reduce_start, ovk_dot_init).
    type, public :: ovk_request
        private
        type(c_ptr) :: ptr = c_null_ptr
    end type ovk_request

    abstract interface
        !> An operator (y = A x: ovk_solver_create_operator) or a
        !> preconditioner (y = C x: ovk_solver_set_precond_fn) on this rank's
        !> n rows (n = ovk_solver_nlocal(s), 0 allowed), x and y in global row
        !> order.  s is the solver running it: the callback may call
        !> ovk_solver_progress(s) inside its loops, the queries, ovk_matvec,
        !> the vector routines and reductions of its own; changing or
        !> freeing the solver, its matrix or its reducer is refused with
        !> OVK_EBUSY.  ctx is the context given with the callback.  Return 0,
        !> or a nonzero code of your own to fail the solve: it then ends with
        !> OVK_ECALLBACK on every rank (the failing rank's detail names the
        !> callback and the code).  A failing callback must still take part
        !> in whatever communication the other ranks' callbacks do (its halo
        !> exchange).
        integer function ovk_apply_fn(s, n, x, y, ctx)
            import :: c_double, c_ptr, ovk_solver
            type(ovk_solver), intent(in) :: s
            integer, intent(in) :: n
            real(c_double), intent(in) :: x(n)
            real(c_double), intent(out) :: y(n)
            type(c_ptr), intent(in) :: ctx
        end function ovk_apply_fn

        !> A monitor: called on every rank after the initial residual
        !> (iteration 0) and after every iteration, with the same values on
        !> every rank: rnorm = ||r||_2 of the residual the variant reduces
        !> anyway (of the pipelined variants pipecg, groppcg, pipeprcg and
        !> plcg a lagged one), rel = rnorm / ||b||_2; it adds no reduction.
        !> Return .true. to ask to stop (the ranks need not agree): the
        !> request rides the variant's next reduction, and the solve stops
        !> one iteration later (up to l + 1 for plcg) with OVK_ESTOPPED,
        !> reason OVK_REASON_MONITOR, on every rank.  s and ctx as for
        !> ovk_apply_fn.
        logical function ovk_monitor_fn(s, iteration, rnorm, rel, ctx)
            import :: c_double, c_ptr, ovk_solver
            type(ovk_solver), intent(in) :: s
            integer, intent(in) :: iteration
            real(c_double), intent(in) :: rnorm, rel
            type(c_ptr), intent(in) :: ctx
        end function ovk_monitor_fn

        !> A convergence test in place of ||r|| < max(rtol ||b||, atol)
        !> (divtol, non-finite values and max_it still stop): called on
        !> every rank at iteration 0 and after every iteration with rnorm as
        !> the monitor gets it, bnorm = ||b||_2 and rnorm0 = ||r0||_2.
        !> Returns OVK_VERDICT_CONTINUE, OVK_VERDICT_CONVERGED (the solve
        !> stops at this iteration with OVK_OK, reason converged) or
        !> OVK_VERDICT_DIVERGED (OVK_EDIVERGED, reason diverged).  The
        !> verdict is applied at once, without a reduction: it must be a
        !> function of the arguments (reduced values, bitwise the same on
        !> every rank) and of what is the same on every rank.  s and ctx as
        !> for ovk_apply_fn.
        integer function ovk_converged_fn(s, iteration, rnorm, bnorm, rnorm0, ctx)
            import :: c_double, c_ptr, ovk_solver
            type(ovk_solver), intent(in) :: s
            integer, intent(in) :: iteration
            real(c_double), intent(in) :: rnorm, bnorm, rnorm0
            type(c_ptr), intent(in) :: ctx
        end function ovk_converged_fn
    end interface
    public :: ovk_apply_fn, ovk_monitor_fn, ovk_converged_fn

    ! The Fortran callbacks of one solver and their contexts.  The library
    ! keeps C pointers to the module's bind(C) trampolines and, as their
    ! context, to this box, which the trampolines call through.  The box is
    ! made by ovk_solver_create_operator or the first ovk_solver_set_monitor
    ! / _set_precond_fn / _set_convergence_test and freed by
    ! ovk_solver_destroy.
    type :: callback_box
        procedure(ovk_apply_fn), pointer, nopass :: op => null(), pc => null()
        procedure(ovk_monitor_fn), pointer, nopass :: mon => null()
        procedure(ovk_converged_fn), pointer, nopass :: conv => null()
        type(c_ptr) :: op_ctx = c_null_ptr, pc_ctx = c_null_ptr, mon_ctx = c_null_ptr, conv_ctx = c_null_ptr
    end type callback_box

    ! ---- the procedures ----------------------------------------------------
    !> Build a matrix from this rank's rows (collective over comm).
    interface ovk_matrix_create_csr
        module procedure matrix_create_csr_i4, matrix_create_csr_i8
    end interface
    !> New values on the same pattern (collective).
    interface ovk_matrix_update_values
        module procedure matrix_update_values_i4, matrix_update_values_i8
    end interface
    !> A zero vector with the row layout of a matrix or a solver (local).
    interface ovk_vector_create
        module procedure vector_create_matrix, vector_create_solver
    end interface
    !> Set one option by name; the value as text, integer or real.
    interface ovk_solver_set_option
        module procedure solver_set_option_text, solver_set_option_int, solver_set_option_real
    end interface
    !> Solve A x = b with vectors or with this rank's arrays (collective).
    interface ovk_solver_solve
        module procedure solver_solve_vectors, solver_solve_arrays
    end interface
    !> Solve k systems together (collective): k vectors each, or the
    !> columns of this rank's arrays B(nlocal, k) and X(nlocal, k).
    interface ovk_solver_solve_many
        module procedure solver_solve_many_vectors, solver_solve_many_arrays
    end interface
    !> Start a split-phase reduction of real(c_double) or integer(int64)
    !> buffers.
    interface ovk_reduce_start
        module procedure reduce_start_real, reduce_start_int
    end interface
    !> The value of an entry of the options database as text, integer or
    !> real (local).
    interface ovk_options_get
        module procedure options_get_text, options_get_int, options_get_real
    end interface

    public :: ovk_matrix_create_csr, ovk_matrix_update_values, ovk_matrix_destroy, ovk_matrix_nlocal, &
        ovk_matrix_nglobal, ovk_matrix_row_start, ovk_matrix_comm, ovk_matvec
    public :: ovk_vector_create, ovk_vector_wrap, ovk_vector_destroy, ovk_vector_data, ovk_vector_nlocal
    public :: ovk_solver_create, ovk_solver_destroy, ovk_solver_set_option, ovk_solver_get_option, &
        ovk_solver_get_info, ovk_solver_get_info_text, &
        ovk_solver_set_options, ovk_solver_set_tolerances, ovk_solver_set_coordinates, ovk_solver_set_monitor, &
        ovk_solver_setup, ovk_solver_set_nullspace, ovk_solver_set_nullspace_rigid_body, &
        ovk_solver_set_fields, ovk_solver_set_schur_matrix, &
        ovk_solver_solve, ovk_solver_nlocal, ovk_solver_setup_time, ovk_solver_comm, &
        ovk_solver_solve_many, ovk_solver_system_index, ovk_solver_recycle_reset
    public :: ovk_solver_create_operator, ovk_solver_set_precond_fn, ovk_solver_set_history, &
        ovk_solver_set_reducer, ovk_solver_progress
    public :: ovk_reducer_create, ovk_reducer_destroy, ovk_reducer_name, ovk_reducer_spec, ovk_reducer_progress, &
        ovk_reduce_start, ovk_reduce_test, ovk_reduce_wait, ovk_request_free, ovk_dot_init, ovk_dot_wait
    public :: ovk_options_set_args, ovk_solver_set_from_options, ovk_options_get, ovk_options_left, &
        ovk_options_finalize, ovk_options_clear, ovk_solver_view, ovk_solver_set_convergence_test, &
        ovk_solver_type_count, ovk_solver_type_name, ovk_solver_type_description, &
        ovk_precond_type_count, ovk_precond_type_name
    public :: ovk_strerror, ovk_status_name, ovk_error_detail, ovk_reason_name
    public :: ovk_convdiff_create

    ! ---- the C library -------------------------------------------------------
    interface
        pure function c_strlen(s) bind(C, name='strlen')
            import :: c_ptr, c_size_t
            type(c_ptr), value :: s
            integer(c_size_t) :: c_strlen
        end function
        pure function c_strerror(status) bind(C, name='ovk_strerror')
            import :: c_int, c_ptr
            integer(c_int), value :: status
            type(c_ptr) :: c_strerror
        end function
        pure function c_status_name(status) bind(C, name='ovk_status_name')
            import :: c_int, c_ptr
            integer(c_int), value :: status
            type(c_ptr) :: c_status_name
        end function
        function c_error_detail() bind(C, name='ovk_error_detail')
            import :: c_ptr
            type(c_ptr) :: c_error_detail
        end function
        pure function c_reason_name(reason) bind(C, name='ovk_reason_name')
            import :: c_int, c_ptr
            integer(c_int), value :: reason
            type(c_ptr) :: c_reason_name
        end function

        ! src/bind/fortran.c
        function f_fail(code, msg) bind(C, name='ovk__f_fail')
            import :: c_char, c_int
            integer(c_int), value :: code
            character(kind=c_char), intent(in) :: msg(*)
            integer(c_int) :: f_fail
        end function
        function f_agree(fcomm, rc) bind(C, name='ovk__f_agree')
            import :: c_int
            integer(c_int), value :: fcomm, rc
            integer(c_int) :: f_agree
        end function
        function f_matrix_create_csr(fcomm, row_start, nlocal, rowptr, cols, vals, dups, base, A) &
            bind(C, name='ovk__f_matrix_create_csr')
            import :: c_double, c_int, c_int64_t, c_ptr
            integer(c_int), value :: fcomm
            integer(c_int64_t), value :: row_start
            integer(c_int), value :: nlocal
            integer(c_int), intent(in) :: rowptr(*)
            integer(c_int64_t), intent(in) :: cols(*)
            real(c_double), intent(in) :: vals(*)
            integer(c_int), value :: dups, base
            type(c_ptr), intent(out) :: A
            integer(c_int) :: f_matrix_create_csr
        end function
        function f_solver_refuse(s, rc) bind(C, name='ovk__f_solver_refuse')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int), value :: rc
            integer(c_int) :: f_solver_refuse
        end function
        function f_solver_refuse_solve(s, rc) bind(C, name='ovk__f_solver_refuse_solve')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int), value :: rc
            integer(c_int) :: f_solver_refuse_solve
        end function
        function f_convdiff_create(fcomm, nx, ny, nz, px, py, pz, velocity, peclet, scheme, A) &
            bind(C, name='ovk__f_convdiff_create')
            import :: c_double, c_int, c_ptr
            integer(c_int), value :: fcomm, nx, ny, nz, px, py, pz
            real(c_double), intent(in) :: velocity(3)
            real(c_double), value :: peclet
            integer(c_int), value :: scheme
            type(c_ptr), intent(out) :: A
            integer(c_int) :: f_convdiff_create
        end function
        function f_matrix_comm(A) bind(C, name='ovk__f_matrix_comm')
            import :: c_int, c_ptr
            type(c_ptr), value :: A
            integer(c_int) :: f_matrix_comm
        end function
        function f_solver_comm(s) bind(C, name='ovk__f_solver_comm')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int) :: f_solver_comm
        end function
        function f_abi_field(type, field, offset, size) bind(C, name='ovk__f_abi_field')
            import :: c_char, c_int, c_size_t
            character(kind=c_char), intent(in) :: type(*), field(*)
            integer(c_size_t), intent(out) :: offset, size
            integer(c_int) :: f_abi_field
        end function
        function c_solver_get_info(s, key, value) bind(C, name='ovk_solver_get_info')
            import :: c_char, c_double, c_int, c_ptr
            type(c_ptr), value :: s
            character(kind=c_char), intent(in) :: key(*)
            real(c_double), intent(out) :: value
            integer(c_int) :: c_solver_get_info
        end function
        function c_solver_get_info_text(s, key, buf, len) bind(C, name='ovk_solver_get_info_text')
            import :: c_char, c_int, c_ptr, c_size_t
            type(c_ptr), value :: s
            character(kind=c_char), intent(in) :: key(*)
            character(kind=c_char), intent(out) :: buf(*)
            integer(c_size_t), value :: len
            integer(c_int) :: c_solver_get_info_text
        end function
        function f_solver_view(s, text, len) bind(C, name='ovk__f_solver_view')
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: s
            type(c_ptr), intent(out) :: text
            integer(c_size_t), intent(out) :: len
            integer(c_int) :: f_solver_view
        end function
        function f_options_left(list, text, len) bind(C, name='ovk__f_options_left')
            import :: c_int, c_ptr, c_size_t
            integer(c_int), value :: list
            type(c_ptr), intent(out) :: text
            integer(c_size_t), intent(out) :: len
            integer(c_int) :: f_options_left
        end function
        function f_options_finalize() bind(C, name='ovk__f_options_finalize')
            import :: c_int
            integer(c_int) :: f_options_finalize
        end function
        function f_options_get(name, text, found) bind(C, name='ovk__f_options_get')
            import :: c_char, c_int, c_ptr
            character(kind=c_char), intent(in) :: name(*)
            type(c_ptr), intent(out) :: text
            integer(c_int), intent(out) :: found
            integer(c_int) :: f_options_get
        end function
        function f_solver_get_option(s, key, text) bind(C, name='ovk__f_solver_get_option')
            import :: c_char, c_int, c_ptr
            type(c_ptr), value :: s
            character(kind=c_char), intent(in) :: key(*)
            type(c_ptr), intent(out) :: text
            integer(c_int) :: f_solver_get_option
        end function
        subroutine f_free(p) bind(C, name='ovk__f_free')
            import :: c_ptr
            type(c_ptr), value :: p
        end subroutine

        ! the options database (solver.h)
        function c_options_set_args(argc, argv) bind(C, name='ovk_options_set_args')
            import :: c_int, c_ptr
            integer(c_int), value :: argc
            type(c_ptr), intent(in) :: argv(*)
            integer(c_int) :: c_options_set_args
        end function
        function c_solver_set_from_options(s, prefix) bind(C, name='ovk_solver_set_from_options')
            import :: c_char, c_int, c_ptr
            type(c_ptr), value :: s
            character(kind=c_char), intent(in) :: prefix(*)
            integer(c_int) :: c_solver_set_from_options
        end function
        function c_options_get_int(name, value, found) bind(C, name='ovk_options_get_int')
            import :: c_char, c_int
            character(kind=c_char), intent(in) :: name(*)
            integer(c_int), intent(inout) :: value
            integer(c_int), intent(out) :: found
            integer(c_int) :: c_options_get_int
        end function
        function c_options_get_real(name, value, found) bind(C, name='ovk_options_get_real')
            import :: c_char, c_double, c_int
            character(kind=c_char), intent(in) :: name(*)
            real(c_double), intent(inout) :: value
            integer(c_int), intent(out) :: found
            integer(c_int) :: c_options_get_real
        end function
        subroutine c_options_clear() bind(C, name='ovk_options_clear')
        end subroutine
        function c_solver_set_convergence_test(s, fn, ctx) bind(C, name='ovk_solver_set_convergence_test')
            import :: c_funptr, c_int, c_ptr
            type(c_ptr), value :: s
            type(c_funptr), value :: fn
            type(c_ptr), value :: ctx
            integer(c_int) :: c_solver_set_convergence_test
        end function
        pure function c_solver_type_count() bind(C, name='ovk_solver_type_count')
            import :: c_int
            integer(c_int) :: c_solver_type_count
        end function
        pure function c_solver_type_name(i) bind(C, name='ovk_solver_type_name')
            import :: c_int, c_ptr
            integer(c_int), value :: i
            type(c_ptr) :: c_solver_type_name
        end function
        pure function c_precond_type_count() bind(C, name='ovk_precond_type_count')
            import :: c_int
            integer(c_int) :: c_precond_type_count
        end function
        pure function c_precond_type_name(i) bind(C, name='ovk_precond_type_name')
            import :: c_int, c_ptr
            integer(c_int), value :: i
            type(c_ptr) :: c_precond_type_name
        end function
        pure function c_solver_type_description(i) bind(C, name='ovk_solver_type_description')
            import :: c_int, c_ptr
            integer(c_int), value :: i
            type(c_ptr) :: c_solver_type_description
        end function

        ! matrix.h
        function c_matrix_update_values(A, rowptr, cols, vals, dups) bind(C, name='ovk_matrix_update_values')
            import :: c_double, c_int, c_int64_t, c_ptr
            type(c_ptr), value :: A
            integer(c_int), intent(in) :: rowptr(*)
            integer(c_int64_t), intent(in) :: cols(*)
            real(c_double), intent(in) :: vals(*)
            integer(c_int), value :: dups
            integer(c_int) :: c_matrix_update_values
        end function
        function c_matrix_destroy(A) bind(C, name='ovk_matrix_destroy')
            import :: c_int, c_ptr
            type(c_ptr), value :: A
            integer(c_int) :: c_matrix_destroy
        end function
        pure function c_matrix_nglobal(A) bind(C, name='ovk_matrix_nglobal')
            import :: c_int64_t, c_ptr
            type(c_ptr), value :: A
            integer(c_int64_t) :: c_matrix_nglobal
        end function
        pure function c_matrix_row_start(A) bind(C, name='ovk_matrix_row_start')
            import :: c_int64_t, c_ptr
            type(c_ptr), value :: A
            integer(c_int64_t) :: c_matrix_row_start
        end function
        pure function c_matrix_nlocal(A) bind(C, name='ovk_matrix_nlocal')
            import :: c_int, c_ptr
            type(c_ptr), value :: A
            integer(c_int) :: c_matrix_nlocal
        end function
        function c_matvec(A, x, y) bind(C, name='ovk_matvec')
            import :: c_int, c_ptr
            type(c_ptr), value :: A, x, y
            integer(c_int) :: c_matvec
        end function
        function c_vector_create(A, v) bind(C, name='ovk_vector_create')
            import :: c_int, c_ptr
            type(c_ptr), value :: A
            type(c_ptr), intent(out) :: v
            integer(c_int) :: c_vector_create
        end function
        subroutine c_vector_destroy(v) bind(C, name='ovk_vector_destroy')
            import :: c_ptr
            type(c_ptr), value :: v
        end subroutine
        function c_vector_data(v) bind(C, name='ovk_vector_data')
            import :: c_ptr
            type(c_ptr), value :: v
            type(c_ptr) :: c_vector_data
        end function
        pure function c_vector_nlocal(v) bind(C, name='ovk_vector_nlocal')
            import :: c_int, c_ptr
            type(c_ptr), value :: v
            integer(c_int) :: c_vector_nlocal
        end function

        ! solver.h
        function c_solver_create(A, s) bind(C, name='ovk_solver_create')
            import :: c_int, c_ptr
            type(c_ptr), value :: A
            type(c_ptr), intent(out) :: s
            integer(c_int) :: c_solver_create
        end function
        function c_solver_destroy(s) bind(C, name='ovk_solver_destroy')
            import :: c_int, c_ptr
            type(c_ptr), intent(inout) :: s
            integer(c_int) :: c_solver_destroy
        end function
        function c_solver_set_option(s, key, value) bind(C, name='ovk_solver_set_option')
            import :: c_char, c_int, c_ptr
            type(c_ptr), value :: s
            character(kind=c_char), intent(in) :: key(*), value(*)
            integer(c_int) :: c_solver_set_option
        end function
        function c_solver_set_tolerances(s, tol, atol, max_iter) bind(C, name='ovk_solver_set_tolerances')
            import :: c_double, c_int, c_ptr
            type(c_ptr), value :: s
            real(c_double), value :: tol, atol
            integer(c_int), value :: max_iter
            integer(c_int) :: c_solver_set_tolerances
        end function
        function c_solver_set_coordinates(s, dim, nnodes, xyz) bind(C, name='ovk_solver_set_coordinates')
            import :: c_double, c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int), value :: dim, nnodes
            real(c_double), intent(in) :: xyz(*)
            integer(c_int) :: c_solver_set_coordinates
        end function
        function c_solver_set_nullspace(s, has_constant, k, block, rows) bind(C, name='ovk__f_solver_set_nullspace')
            import :: c_double, c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int), value :: has_constant, k, rows
            real(c_double), intent(in) :: block(*)
            integer(c_int) :: c_solver_set_nullspace
        end function
        function c_solver_set_fields(s, ids, rows) bind(C, name='ovk__f_solver_set_fields')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int), intent(in) :: ids(*)
            integer(c_int), value :: rows
            integer(c_int) :: c_solver_set_fields
        end function
        function c_solver_set_schur_matrix(s, m) bind(C, name='ovk_solver_set_schur_matrix')
            import :: c_int, c_ptr
            type(c_ptr), value :: s, m
            integer(c_int) :: c_solver_set_schur_matrix
        end function
        function c_solver_set_nullspace_rigid_body(s, dim, nnodes, xyz) &
            bind(C, name='ovk_solver_set_nullspace_rigid_body')
            import :: c_double, c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int), value :: dim, nnodes
            real(c_double), intent(in) :: xyz(*)
            integer(c_int) :: c_solver_set_nullspace_rigid_body
        end function
        function c_solver_set_monitor(s, fn, ctx) bind(C, name='ovk_solver_set_monitor')
            import :: c_funptr, c_int, c_ptr
            type(c_ptr), value :: s
            type(c_funptr), value :: fn
            type(c_ptr), value :: ctx
            integer(c_int) :: c_solver_set_monitor
        end function
        function c_solver_setup(s) bind(C, name='ovk_solver_setup')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int) :: c_solver_setup
        end function
        function c_solver_recycle_reset(s) bind(C, name='ovk_solver_recycle_reset')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int) :: c_solver_recycle_reset
        end function
        function c_solver_solve(s, b, x, res) bind(C, name='ovk_solver_solve')
            import :: c_int, c_ptr, ovk_result
            type(c_ptr), value :: s, b, x
            type(ovk_result), intent(out) :: res
            integer(c_int) :: c_solver_solve
        end function
        function c_solver_solve_many(s, k, b, x, res) bind(C, name='ovk_solver_solve_many')
            import :: c_int, c_ptr, ovk_result
            type(c_ptr), value :: s
            integer(c_int), value :: k
            type(c_ptr), intent(in) :: b(*), x(*)
            type(ovk_result), intent(inout) :: res(*)
            integer(c_int) :: c_solver_solve_many
        end function
        function c_solver_system_index(s) bind(C, name='ovk_solver_system_index')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int) :: c_solver_system_index
        end function
        function c_solver_vector_create(s, data, v) bind(C, name='ovk_solver_vector_create')
            import :: c_int, c_ptr
            type(c_ptr), value :: s, data
            type(c_ptr), intent(out) :: v
            integer(c_int) :: c_solver_vector_create
        end function
        pure function c_solver_nlocal(s) bind(C, name='ovk_solver_nlocal')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int) :: c_solver_nlocal
        end function
        function c_solver_setup_time(s) bind(C, name='ovk_solver_setup_time')
            import :: c_double, c_ptr
            type(c_ptr), value :: s
            real(c_double) :: c_solver_setup_time
        end function
        function c_solver_create_operator(fcomm, nlocal, fn, ctx, s) bind(C, name='ovk__f_solver_create_operator')
            import :: c_funptr, c_int, c_ptr
            integer(c_int), value :: fcomm, nlocal
            type(c_funptr), value :: fn
            type(c_ptr), value :: ctx
            type(c_ptr), intent(out) :: s
            integer(c_int) :: c_solver_create_operator
        end function
        function c_solver_set_precond_fn(s, fn, ctx) bind(C, name='ovk_solver_set_precond_fn')
            import :: c_funptr, c_int, c_ptr
            type(c_ptr), value :: s
            type(c_funptr), value :: fn
            type(c_ptr), value :: ctx
            integer(c_int) :: c_solver_set_precond_fn
        end function
        function c_solver_set_history(s, buf, len) bind(C, name='ovk_solver_set_history')
            import :: c_int, c_ptr
            type(c_ptr), value :: s, buf
            integer(c_int), value :: len
            integer(c_int) :: c_solver_set_history
        end function
        function c_solver_set_reducer(s, red) bind(C, name='ovk_solver_set_reducer')
            import :: c_int, c_ptr
            type(c_ptr), value :: s, red
            integer(c_int) :: c_solver_set_reducer
        end function
        function c_solver_progress(s) bind(C, name='ovk_solver_progress')
            import :: c_int, c_ptr
            type(c_ptr), value :: s
            integer(c_int) :: c_solver_progress
        end function

        ! reduce.h
        function c_reducer_create(fcomm, spec, red) bind(C, name='ovk__f_reducer_create')
            import :: c_char, c_int, c_ptr
            integer(c_int), value :: fcomm
            character(kind=c_char), intent(in) :: spec(*)
            type(c_ptr), intent(out) :: red
            integer(c_int) :: c_reducer_create
        end function
        function c_reducer_destroy(red) bind(C, name='ovk_reducer_destroy')
            import :: c_int, c_ptr
            type(c_ptr), value :: red
            integer(c_int) :: c_reducer_destroy
        end function
        function c_reducer_name(red) bind(C, name='ovk_reducer_name')
            import :: c_ptr
            type(c_ptr), value :: red
            type(c_ptr) :: c_reducer_name
        end function
        function c_reducer_spec(red) bind(C, name='ovk_reducer_spec')
            import :: c_ptr
            type(c_ptr), value :: red
            type(c_ptr) :: c_reducer_spec
        end function
        function c_reducer_progress(red) bind(C, name='ovk_reducer_progress')
            import :: c_int, c_ptr
            type(c_ptr), value :: red
            integer(c_int) :: c_reducer_progress
        end function
        function c_reduce_start(red, sendbuf, recvbuf, count, dtype, op, req) bind(C, name='ovk_reduce_start')
            import :: c_int, c_ptr
            type(c_ptr), value :: red, sendbuf, recvbuf
            integer(c_int), value :: count, dtype, op
            type(c_ptr), intent(out) :: req
            integer(c_int) :: c_reduce_start
        end function
        function c_reduce_test(req, done) bind(C, name='ovk_reduce_test')
            import :: c_int, c_ptr
            type(c_ptr), value :: req
            integer(c_int), intent(out) :: done
            integer(c_int) :: c_reduce_test
        end function
        function c_reduce_wait(req) bind(C, name='ovk_reduce_wait')
            import :: c_int, c_ptr
            type(c_ptr), value :: req
            integer(c_int) :: c_reduce_wait
        end function
        function c_request_free(req) bind(C, name='ovk_request_free')
            import :: c_int, c_ptr
            type(c_ptr), value :: req
            integer(c_int) :: c_request_free
        end function
        function c_dot_init(red, k, x, y, result, req) bind(C, name='ovk_dot_init')
            import :: c_int, c_ptr
            type(c_ptr), value :: red
            integer(c_int), value :: k
            type(c_ptr), intent(in) :: x(*), y(*)
            type(c_ptr), value :: result
            type(c_ptr), intent(out) :: req
            integer(c_int) :: c_dot_init
        end function
    end interface

contains

    ! ======================================================================
    ! status and messages
    ! ======================================================================

    !> Short English description of a status code (ovk_strerror).
    function ovk_strerror(status) result(text)
        integer, intent(in) :: status
        character(len=:), allocatable :: text
        text = from_c(c_strerror(int(status, c_int)))
    end function ovk_strerror

    !> Symbolic name of a status code, e.g. "OVK_EMAXIT".
    function ovk_status_name(status) result(text)
        integer, intent(in) :: status
        character(len=:), allocatable :: text
        text = from_c(c_status_name(int(status, c_int)))
    end function ovk_status_name

    !> The detail of the most recent failure on the calling thread (which
    !> row, option or argument), or "" when none was recorded.
    function ovk_error_detail() result(text)
        character(len=:), allocatable :: text
        text = from_c(c_error_detail())
    end function ovk_error_detail

    !> Name of a reason code (ovk_result%reason), e.g. "converged".
    function ovk_reason_name(reason) result(text)
        integer, intent(in) :: reason
        character(len=:), allocatable :: text
        text = from_c(c_reason_name(int(reason, c_int)))
    end function ovk_reason_name

    ! A NUL-terminated C string as a Fortran string ("" for NULL).
    function from_c(p) result(text)
        type(c_ptr), intent(in) :: p
        character(len=:), allocatable :: text
        character(kind=c_char), pointer :: chars(:)
        integer :: i, n
        if (.not. c_associated(p)) then
            text = ''
            return
        end if
        n = int(c_strlen(p))
        call c_f_pointer(p, chars, [n])
        allocate (character(len=n) :: text)
        do i = 1, n
            text(i:i) = chars(i)
        end do
    end function from_c

    ! A Fortran string for C: trailing blanks removed, NUL appended.
    pure function to_c(text) result(s)
        character(len=*), intent(in) :: text
        character(kind=c_char, len=:), allocatable :: s
        s = trim(text)//c_null_char
    end function to_c

    ! Record msg as the failure detail; returns code.
    function fail(code, msg) result(rc)
        integer, intent(in) :: code
        character(len=*), intent(in) :: msg
        integer(c_int) :: rc
        rc = f_fail(int(code, c_int), to_c(msg))
    end function fail

    ! Hand rc to the caller through ierr, or, when ierr is absent, report a
    ! failure and abort (MPI_ERRORS_ARE_FATAL).
    subroutine finish(rc, routine, ierr)
        integer(c_int), intent(in) :: rc
        character(len=*), intent(in) :: routine
        integer, intent(out), optional :: ierr
        logical :: up, down
        integer :: rank
        character(len=16) :: who
        if (present(ierr)) then
            ierr = int(rc)
            return
        end if
        if (rc == OVK_OK) return
        rank = -1
        call MPI_Initialized(up)
        call MPI_Finalized(down)
        if (up .and. .not. down) call MPI_Comm_rank(MPI_COMM_WORLD, rank)
        write (who, '(i0)') rank
        write (error_unit, '(a)') 'ovkrylov: rank '//trim(who)//': '//routine//': '//ovk_strerror(int(rc)) &
            //': '//ovk_error_detail()
        flush (error_unit)
        if (up .and. .not. down) call MPI_Abort(MPI_COMM_WORLD, 1)
        error stop 1
    end subroutine finish

    ! The index base of an optional argument (1 when absent).
    pure integer function base_of(base)
        integer, intent(in), optional :: base
        base_of = 1
        if (present(base)) base_of = base
    end function base_of

    ! Whether an array the library keeps the address of is contiguous (the
    ! dummies that receive such arrays are not CONTIGUOUS, so that no
    ! temporary copy is passed instead: this checks the caller's own array).
    logical function dense_real(a)
        real(c_double), intent(in), target :: a(:)
        dense_real = size(a) < 2
        if (.not. dense_real) dense_real = span(c_loc(a(1)), c_loc(a(size(a)))) == (size(a) - 1) * c_sizeof(a(1))
    end function dense_real

    logical function dense_int(a)
        integer(int64), intent(in), target :: a(:)
        dense_int = size(a) < 2
        if (.not. dense_int) dense_int = span(c_loc(a(1)), c_loc(a(size(a)))) == (size(a) - 1) * c_sizeof(a(1))
    end function dense_int

    ! "" when the module's ovk_result has the library's layout (its size
    ! and every component's offset and size, ovk_abi_field), else the first
    ! difference.
    function result_layout_problem() result(why)
        character(len=:), allocatable :: why
        type(ovk_result), target :: r
        type(c_ptr) :: at
        character(len=24), parameter :: names(17) = [character(len=24) :: 'iterations', 'rel_residual', &
            'reason', 'reductions', 'time_max', 'time_mean', 'lambda_min', 'lambda_max', 'cond_est', &
            'replacements', 'restarts', 'history_len', 'auto_latency_us', 'auto_work_us', 'auto_choice', &
            'nullspace_inconsistency', 'rhs_norm']
        type(c_ptr) :: p(17)
        integer(c_size_t) :: bytes(17)
        integer :: i
        at = c_loc(r)
        p = [c_loc(r%iterations), c_loc(r%rel_residual), c_loc(r%reason), c_loc(r%reductions), &
            c_loc(r%time_max), c_loc(r%time_mean), c_loc(r%lambda_min), c_loc(r%lambda_max), c_loc(r%cond_est), &
            c_loc(r%replacements), c_loc(r%restarts), c_loc(r%history_len), c_loc(r%auto_latency_us), &
            c_loc(r%auto_work_us), c_loc(r%auto_choice), c_loc(r%nullspace_inconsistency), &
            c_loc(r%rhs_norm)]
        bytes = [c_sizeof(r%iterations), c_sizeof(r%rel_residual), c_sizeof(r%reason), c_sizeof(r%reductions), &
            c_sizeof(r%time_max), c_sizeof(r%time_mean), c_sizeof(r%lambda_min), c_sizeof(r%lambda_max), &
            c_sizeof(r%cond_est), c_sizeof(r%replacements), c_sizeof(r%restarts), c_sizeof(r%history_len), &
            c_sizeof(r%auto_latency_us), c_sizeof(r%auto_work_us), c_sizeof(r%auto_choice), &
            c_sizeof(r%nullspace_inconsistency), c_sizeof(r%rhs_norm)]
        why = field_problem('', 0_c_intptr_t, c_sizeof(r))
        do i = 1, size(names)
            if (len(why) > 0) return
            why = field_problem(trim(names(i)), span(at, p(i)), bytes(i))
        end do
    end function result_layout_problem

    ! "" when component name of ovk_result ("": the whole) lies at
    ! offset `off` with `bytes` bytes in the library too, else the difference.
    function field_problem(name, off, bytes) result(why)
        character(len=*), intent(in) :: name
        integer(c_intptr_t), intent(in) :: off
        integer(c_size_t), intent(in) :: bytes
        character(len=:), allocatable :: why
        integer(c_size_t) :: lib_off, lib_size
        character(len=80) :: got
        why = ''
        if (f_abi_field(to_c('ovk_result'), to_c(name), lib_off, lib_size) /= OVK_OK) then
            why = 'the library does not list component '//name
        else if (lib_off /= off .or. lib_size /= bytes) then
            write (got, '(4(a,i0))') 'offset ', off, ', size ', bytes, ' here; ', lib_off, ', ', lib_size
            if (name == '') then
                why = 'its size: '//trim(got)//' in the library'
            else
                why = 'component '//name//': '//trim(got)//' in the library'
            end if
        end if
    end function field_problem

    ! Bytes from p to q.
    integer(c_intptr_t) function span(p, q)
        type(c_ptr), intent(in) :: p, q
        span = transfer(q, 0_c_intptr_t) - transfer(p, 0_c_intptr_t)
    end function span

    ! ======================================================================
    ! matrices
    ! ======================================================================

    ! Local checks of CSR rows that the C library cannot do (it does not
    ! know the lengths of the arrays): rowptr within cols and vals,
    ! nondecreasing; base and dups.  OVK_OK, or OVK_EINVAL with the detail.
    function check_csr(routine, base, dups, rowptr, ncols, nvals) result(rc)
        character(len=*), intent(in) :: routine
        integer, intent(in) :: base, dups
        integer, intent(in) :: rowptr(:)
        integer(int64), intent(in) :: ncols, nvals
        integer(c_int) :: rc
        character(len=320) :: msg
        integer :: i, n
        rc = OVK_OK
        msg = ''
        n = size(rowptr) - 1
        if (base /= 0 .and. base /= 1) then
            write (msg, '(a,i0,a)') routine//': base = ', base, ' (want 0 or 1)'
        else if (dups /= OVK_DUP_SUM .and. dups /= OVK_DUP_REJECT) then
            write (msg, '(a,i0,a)') routine//': dups = ', dups, ' (want OVK_DUP_SUM or OVK_DUP_REJECT)'
        else if (n < 0) then
            msg = routine//': rowptr is empty (it has nlocal+1 entries)'
        else if (rowptr(1) < base) then
            write (msg, '(a,i0,a,i0)') routine//': rowptr(1) = ', rowptr(1), ' is below the index base ', base
        else
            do i = 1, n
                if (rowptr(i + 1) < rowptr(i)) then
                    write (msg, '(a,2(i0,a),i0)') routine//': rowptr decreases: rowptr(', i + 1, ') = ', &
                        rowptr(i + 1), ' < rowptr(i) = ', rowptr(i)
                    exit
                end if
            end do
            if (len_trim(msg) == 0 .and. rowptr(n + 1) - base > ncols) then
                write (msg, '(a,2(i0,a),i0,a)') routine//': rowptr(', n + 1, ') = ', rowptr(n + 1), &
                    ' points past the end of cols (', ncols, ' entries)'
            else if (len_trim(msg) == 0 .and. rowptr(n + 1) - base > nvals) then
                write (msg, '(a,2(i0,a),i0,a)') routine//': rowptr(', n + 1, ') = ', rowptr(n + 1), &
                    ' points past the end of vals (', nvals, ' entries)'
            end if
        end if
        if (len_trim(msg) > 0) rc = fail(OVK_EINVAL, trim(msg))
    end function check_csr

    !> Build a matrix from this rank's rows, as hypre's IJ interface is fed.
    !> Collective over comm; the rank's rows are row_start ..
    !> row_start+nlocal-1 with nlocal = size(rowptr)-1 (0 allowed: rowptr = [1]),
    !> the ranks' rows tile the global range in rank order.  Row i's global
    !> column ids are cols(rowptr(i):rowptr(i+1)-1) with values vals(...)
    !> (1-based; base=0 for 0-based ids and offsets).  dups: OVK_DUP_SUM
    !> (default) adds repeated entries, OVK_DUP_REJECT refuses them.  The
    !> arrays are copied.  Same status on every rank.
    subroutine matrix_create_csr_i4(comm, row_start, rowptr, cols, vals, A, ierr, base, dups)
        type(MPI_Comm), intent(in) :: comm
        integer(int32), intent(in) :: row_start
        integer, intent(in) :: rowptr(:)
        integer(int32), intent(in) :: cols(:)
        real(c_double), intent(in) :: vals(:)
        type(ovk_matrix), intent(out) :: A
        integer, intent(out), optional :: ierr
        integer, intent(in), optional :: base, dups
        call create_csr(comm, int(row_start, int64), rowptr, int(cols, int64) - base_of(base), vals, A, &
            ierr, base, dups)
    end subroutine matrix_create_csr_i4

    subroutine matrix_create_csr_i8(comm, row_start, rowptr, cols, vals, A, ierr, base, dups)
        type(MPI_Comm), intent(in) :: comm
        integer(int64), intent(in) :: row_start
        integer, intent(in) :: rowptr(:)
        integer(int64), intent(in) :: cols(:)
        real(c_double), intent(in) :: vals(:)
        type(ovk_matrix), intent(out) :: A
        integer, intent(out), optional :: ierr
        integer, intent(in), optional :: base, dups
        if (base_of(base) == 0) then
            call create_csr(comm, row_start, rowptr, cols, vals, A, ierr, base, dups)
        else
            call create_csr(comm, row_start, rowptr, cols - base_of(base), vals, A, ierr, base, dups)
        end if
    end subroutine matrix_create_csr_i8

    ! cols0: the column ids already 0-based.
    subroutine create_csr(comm, row_start, rowptr, cols0, vals, A, ierr, base, dups)
        type(MPI_Comm), intent(in) :: comm
        integer(int64), intent(in) :: row_start
        integer, intent(in) :: rowptr(:)
        integer(int64), intent(in) :: cols0(:)
        real(c_double), intent(in) :: vals(:)
        type(ovk_matrix), intent(out) :: A
        integer, intent(out), optional :: ierr
        integer, intent(in), optional :: base, dups
        integer :: b, d
        integer(c_int) :: rc
        b = base_of(base)
        d = OVK_DUP_SUM
        if (present(dups)) d = dups
        rc = check_csr('ovk_matrix_create_csr', b, d, rowptr, size(cols0, kind=int64), size(vals, kind=int64))
        rc = f_agree(int(comm%MPI_VAL, c_int), rc)
        if (rc == OVK_OK) rc = f_matrix_create_csr(int(comm%MPI_VAL, c_int), int(row_start - b, c_int64_t), &
            int(size(rowptr) - 1, c_int), int(rowptr - b, c_int), cols0, vals, int(d, c_int), int(b, c_int), A%ptr)
        call finish(rc, 'ovk_matrix_create_csr', ierr)
    end subroutine create_csr

    !> The 3-D convection-diffusion matrix of ovk_convdiff_create (problems.h):
    !> nx x ny x nz points per rank on a px x py x pz grid of ranks, the
    !> velocity, the Peclet number and scheme (OVK_CONVDIFF_UPWIND or
    !> OVK_CONVDIFF_CENTRAL).  Nonsymmetric: solve it with gmres, pgmres,
    !> bicgstab, pipebicgstab or auto.  Collective; the same status on every rank.
    subroutine ovk_convdiff_create(comm, nx, ny, nz, px, py, pz, velocity, peclet, scheme, A, ierr)
        type(MPI_Comm), intent(in) :: comm
        integer, intent(in) :: nx, ny, nz, px, py, pz, scheme
        real(c_double), intent(in) :: velocity(3), peclet
        type(ovk_matrix), intent(out) :: A
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        rc = f_convdiff_create(int(comm%MPI_VAL, c_int), int(nx, c_int), int(ny, c_int), int(nz, c_int), &
            int(px, c_int), int(py, c_int), int(pz, c_int), velocity, peclet, int(scheme, c_int), A%ptr)
        call finish(rc, 'ovk_convdiff_create', ierr)
    end subroutine ovk_convdiff_create

    !> New values on the matrix's pattern, the rows given as to
    !> ovk_matrix_create_csr (same base convention).  Solvers on A redo their
    !> numeric setup at their next solve.  Collective; OVK_EMISMATCH when the
    !> pattern differs (nothing changed).
    subroutine matrix_update_values_i4(A, rowptr, cols, vals, ierr, base, dups)
        type(ovk_matrix), intent(inout) :: A
        integer, intent(in) :: rowptr(:)
        integer(int32), intent(in) :: cols(:)
        real(c_double), intent(in) :: vals(:)
        integer, intent(out), optional :: ierr
        integer, intent(in), optional :: base, dups
        call update_values(A, rowptr, int(cols, int64) - base_of(base), vals, ierr, base, dups)
    end subroutine matrix_update_values_i4

    subroutine matrix_update_values_i8(A, rowptr, cols, vals, ierr, base, dups)
        type(ovk_matrix), intent(inout) :: A
        integer, intent(in) :: rowptr(:)
        integer(int64), intent(in) :: cols(:)
        real(c_double), intent(in) :: vals(:)
        integer, intent(out), optional :: ierr
        integer, intent(in), optional :: base, dups
        if (base_of(base) == 0) then
            call update_values(A, rowptr, cols, vals, ierr, base, dups)
        else
            call update_values(A, rowptr, cols - base_of(base), vals, ierr, base, dups)
        end if
    end subroutine matrix_update_values_i8

    subroutine update_values(A, rowptr, cols0, vals, ierr, base, dups)
        type(ovk_matrix), intent(inout) :: A
        integer, intent(in) :: rowptr(:)
        integer(int64), intent(in) :: cols0(:)
        real(c_double), intent(in) :: vals(:)
        integer, intent(out), optional :: ierr
        integer, intent(in), optional :: base, dups
        character(len=*), parameter :: routine = 'ovk_matrix_update_values'
        character(len=160) :: msg
        integer :: b, d, nlocal
        integer(c_int) :: rc
        b = base_of(base)
        d = OVK_DUP_SUM
        if (present(dups)) d = dups
        if (.not. c_associated(A%ptr)) then
            call finish(fail(OVK_EINVAL, routine//': the matrix is not created'), routine, ierr)
            return
        end if
        nlocal = int(c_matrix_nlocal(A%ptr))
        rc = check_csr(routine, b, d, rowptr, size(cols0, kind=int64), size(vals, kind=int64))
        if (rc == OVK_OK .and. size(rowptr) /= nlocal + 1) then
            write (msg, '(a,i0,a,i0,a)') routine//': rowptr has ', size(rowptr), ' entries, the matrix has ', &
                nlocal, ' rows on this rank'
            rc = fail(OVK_EINVAL, trim(msg))
        end if
        rc = f_agree(f_matrix_comm(A%ptr), rc)
        if (rc == OVK_OK) rc = c_matrix_update_values(A%ptr, int(rowptr - b, c_int), cols0, vals, int(d, c_int))
        call finish(rc, routine, ierr)
    end subroutine update_values

    !> Free a matrix (collective; a matrix never created is allowed).
    subroutine ovk_matrix_destroy(A, ierr)
        type(ovk_matrix), intent(inout) :: A
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        rc = c_matrix_destroy(A%ptr)
        if (rc == OVK_OK) A%ptr = c_null_ptr
        call finish(rc, 'ovk_matrix_destroy', ierr)
    end subroutine ovk_matrix_destroy

    !> Rows of the matrix on this rank.
    pure integer function ovk_matrix_nlocal(A)
        type(ovk_matrix), intent(in) :: A
        ovk_matrix_nlocal = int(c_matrix_nlocal(A%ptr))
    end function ovk_matrix_nlocal

    !> Rows of the whole matrix.
    pure integer(int64) function ovk_matrix_nglobal(A)
        type(ovk_matrix), intent(in) :: A
        ovk_matrix_nglobal = int(c_matrix_nglobal(A%ptr), int64)
    end function ovk_matrix_nglobal

    !> Global index of this rank's first row: 1-based, or 0-based with base=0.
    pure integer(int64) function ovk_matrix_row_start(A, base)
        type(ovk_matrix), intent(in) :: A
        integer, intent(in), optional :: base
        ovk_matrix_row_start = int(c_matrix_row_start(A%ptr), int64) + base_of(base)
    end function ovk_matrix_row_start

    !> The matrix's communicator (the library's duplicate of the one given).
    function ovk_matrix_comm(A) result(comm)
        type(ovk_matrix), intent(in) :: A
        type(MPI_Comm) :: comm
        comm%MPI_VAL = f_matrix_comm(A%ptr)
    end function ovk_matrix_comm

    !> y = A x (collective: halo exchange).
    subroutine ovk_matvec(A, x, y, ierr)
        type(ovk_matrix), intent(in) :: A
        type(ovk_vector), intent(in) :: x
        type(ovk_vector), intent(inout) :: y
        integer, intent(out), optional :: ierr
        call finish(c_matvec(A%ptr, x%ptr, y%ptr), 'ovk_matvec', ierr)
    end subroutine ovk_matvec

    ! ======================================================================
    ! vectors
    ! ======================================================================

    !> A zero vector with A's row layout (local).
    subroutine vector_create_matrix(A, v, ierr)
        type(ovk_matrix), intent(in) :: A
        type(ovk_vector), intent(out) :: v
        integer, intent(out), optional :: ierr
        call finish(c_vector_create(A%ptr, v%ptr), 'ovk_vector_create', ierr)
    end subroutine vector_create_matrix

    !> A zero vector with the solver's row layout (local).
    subroutine vector_create_solver(s, v, ierr)
        type(ovk_solver), intent(in) :: s
        type(ovk_vector), intent(out) :: v
        integer, intent(out), optional :: ierr
        call finish(c_solver_vector_create(s%ptr, c_null_ptr, v%ptr), 'ovk_vector_create', ierr)
    end subroutine vector_create_solver

    !> A vector on the caller's array (no copy): array holds this rank's
    !> ovk_solver_nlocal(s) values and must be contiguous, have the TARGET
    !> (or POINTER) attribute and outlive v.  Local.
    subroutine ovk_vector_wrap(s, array, v, ierr)
        type(ovk_solver), intent(in) :: s
        real(c_double), intent(inout), target :: array(:) ! not CONTIGUOUS: no copy is made
        type(ovk_vector), intent(out) :: v
        integer, intent(out), optional :: ierr
        character(len=160) :: msg
        integer(c_int) :: rc, n
        n = c_solver_nlocal(s%ptr) ! 0 for a solver never created
        if (c_associated(s%ptr) .and. size(array) /= n) then
            write (msg, '(a,i0,a,i0,a)') 'ovk_vector_wrap: the array has ', size(array), &
                ' values, the solver has ', n, ' rows on this rank'
            rc = fail(OVK_EINVAL, trim(msg))
        else if (.not. dense_real(array)) then
            rc = fail(OVK_EINVAL, 'ovk_vector_wrap: the array is not contiguous (the library keeps its address)')
        else if (size(array) == 0) then
            rc = c_solver_vector_create(s%ptr, c_null_ptr, v%ptr)
        else
            rc = c_solver_vector_create(s%ptr, c_loc(array(1)), v%ptr)
        end if
        call finish(rc, 'ovk_vector_wrap', ierr)
    end subroutine ovk_vector_wrap

    !> Free a vector (a wrapped array stays the caller's).  Local.
    subroutine ovk_vector_destroy(v)
        type(ovk_vector), intent(inout) :: v
        call c_vector_destroy(v%ptr)
        v%ptr = c_null_ptr
    end subroutine ovk_vector_destroy

    !> This rank's values of v, writable, in global row order:
    !> `x => ovk_vector_data(v)`.  Valid while v exists.
    function ovk_vector_data(v) result(p)
        type(ovk_vector), intent(in) :: v
        real(c_double), pointer :: p(:)
        p => null()
        if (c_associated(v%ptr)) call c_f_pointer(c_vector_data(v%ptr), p, [c_vector_nlocal(v%ptr)])
    end function ovk_vector_data

    !> Number of this rank's values of v.
    pure integer function ovk_vector_nlocal(v)
        type(ovk_vector), intent(in) :: v
        ovk_vector_nlocal = int(c_vector_nlocal(v%ptr))
    end function ovk_vector_nlocal

    ! ======================================================================
    ! the solver object
    ! ======================================================================

    !> A solver on the assembled matrix A (borrowed: A must outlive s).
    !> Local.  The optional options are set as ovk_solver_set_option does;
    !> when one is refused, ierr says so and s is kept all the same (destroy
    !> it, or set an option again): ovk_solver_setup fails on every rank
    !> with the refusal until then, so that no rank is left alone in setup.
    subroutine ovk_solver_create(A, s, ierr, solver, backend, precond, tol, atol, max_iter, print_level, rtol, &
        max_it)
        type(ovk_matrix), intent(in) :: A
        type(ovk_solver), intent(out) :: s
        integer, intent(out), optional :: ierr
        character(len=*), intent(in), optional :: solver, backend, precond
        real(c_double), intent(in), optional :: tol, atol, rtol
        integer, intent(in), optional :: max_iter, print_level, max_it
        integer(c_int) :: rc
        character(len=:), allocatable :: why
        why = result_layout_problem()
        if (len(why) > 0) then
            rc = fail(OVK_EINVAL, 'ovk_solver_create: the module''s ovk_result does not match the '// &
                'library''s ('//why//'; module and library from different versions?)')
        else
            rc = c_solver_create(A%ptr, s%ptr)
        end if
        ! A refused option keeps the solver: destroying it on this rank alone would
        ! leave the other ranks waiting in their setup; the library remembers the
        ! refusal and ovk_solver_setup reports it on every rank.
        if (rc == OVK_OK) then
            call set_options(s, rc, solver, backend, precond, tol, atol, max_iter, print_level, rtol, max_it)
            if (rc /= OVK_OK) rc = f_solver_refuse(s%ptr, rc)
        end if
        call finish(rc, 'ovk_solver_create', ierr)
    end subroutine ovk_solver_create

    !> A solver on the application's operator (matrix-free): y = A x is
    !> matvec (see ovk_apply_fn) on this rank's nlocal rows (0 allowed),
    !> the ranks' rows in rank order.  Collective over comm.  ctx is handed
    !> to every call of matvec: the library keeps it (c_loc of a variable
    !> with the TARGET attribute that outlives the solver, or c_null_ptr).
    !> The options as ovk_solver_create's; the default preconditioner
    !> (jacobi) reads a matrix, which an operator has not: give precond='none'
    !> or a preconditioner callback (ovk_solver_set_precond_fn).
    subroutine ovk_solver_create_operator(comm, nlocal, matvec, s, ierr, ctx, solver, backend, precond, tol, atol, &
        max_iter, print_level, rtol, max_it)
        type(MPI_Comm), intent(in) :: comm
        integer, intent(in) :: nlocal
        procedure(ovk_apply_fn) :: matvec
        type(ovk_solver), intent(out) :: s
        integer, intent(out), optional :: ierr
        type(c_ptr), intent(in), optional :: ctx
        character(len=*), intent(in), optional :: solver, backend, precond
        real(c_double), intent(in), optional :: tol, atol, rtol
        integer, intent(in), optional :: max_iter, print_level, max_it
        integer(c_int) :: rc
        allocate (s%cb)
        s%cb%op => matvec
        if (present(ctx)) s%cb%op_ctx = ctx
        rc = c_solver_create_operator(int(comm%MPI_VAL, c_int), int(nlocal, c_int), c_funloc(op_trampoline), &
            c_loc(s%cb), s%ptr)
        if (rc /= OVK_OK) deallocate (s%cb)
        if (rc == OVK_OK) then ! a refusal is kept, as in ovk_solver_create
            call set_options(s, rc, solver, backend, precond, tol, atol, max_iter, print_level, rtol, max_it)
            if (rc /= OVK_OK) rc = f_solver_refuse(s%ptr, rc)
        end if
        call finish(rc, 'ovk_solver_create_operator', ierr)
    end subroutine ovk_solver_create_operator

    !> Destroy s (collective: the reducer it owns).  A solver never created
    !> is allowed.  Frees the module's record of its callbacks.
    subroutine ovk_solver_destroy(s, ierr)
        type(ovk_solver), intent(inout) :: s
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        rc = c_solver_destroy(s%ptr)
        ! gone unless s was not a solver, or is in use by a solve (OVK_EBUSY)
        if (.not. c_associated(s%ptr) .and. associated(s%cb)) deallocate (s%cb)
        call finish(rc, 'ovk_solver_destroy', ierr)
    end subroutine ovk_solver_destroy

    !> One option by name (solver.h's table): solver, backend, precond,
    !> rtol, atol, divtol, max_it, print_level, progress_every, condest,
    !> replace_every, initial_guess_zero, monitor, monitor_true, view,
    !> converged_reason (tol and max_iter: older spellings of rtol and
    !> max_it).  Local; OVK_EOPTION for an unknown key or a malformed value.
    !> Names of solvers, backends and preconditioners are checked at the
    !> next setup (the next solve's, or ovk_solver_setup).
    subroutine solver_set_option_text(s, key, value, ierr)
        type(ovk_solver), intent(inout) :: s
        character(len=*), intent(in) :: key, value
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        if (index(key, c_null_char) > 0 .or. index(value, c_null_char) > 0) then ! C would read only up to it
            rc = fail(OVK_EOPTION, 'option '//trim(key)//': the key or value holds a NUL character (char(0))')
        else
            rc = c_solver_set_option(s%ptr, to_c(key), to_c(value))
        end if
        call finish(rc, 'ovk_solver_set_option', ierr)
    end subroutine solver_set_option_text

    subroutine solver_set_option_int(s, key, value, ierr)
        type(ovk_solver), intent(inout) :: s
        character(len=*), intent(in) :: key
        integer, intent(in) :: value
        integer, intent(out), optional :: ierr
        character(len=24) :: text
        write (text, '(i0)') value
        call solver_set_option_text(s, key, text, ierr)
    end subroutine solver_set_option_int

    subroutine solver_set_option_real(s, key, value, ierr)
        type(ovk_solver), intent(inout) :: s
        character(len=*), intent(in) :: key
        real(c_double), intent(in) :: value
        integer, intent(out), optional :: ierr
        character(len=40) :: text
        write (text, '(es26.17e3)') value ! 18 digits: the value exactly
        call solver_set_option_text(s, key, adjustl(text), ierr)
    end subroutine solver_set_option_real

    !> The current value of an option, as text.  Local.
    !> What solver s reports by key (solver.h, ovk_solver_get_info): a number
    !> (auto_latency_us, auto_work_us, nullspace_inconsistency) of the last
    !> solve.  Local.  OVK_EINVAL for an unknown or text key.
    subroutine ovk_solver_get_info(s, key, value, ierr)
        type(ovk_solver), intent(in) :: s
        character(len=*), intent(in) :: key
        real(c_double), intent(out) :: value
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        value = 0
        rc = c_solver_get_info(s%ptr, to_c(key), value)
        call finish(rc, 'ovk_solver_get_info', ierr)
    end subroutine ovk_solver_get_info

    !> Any key of ovk_solver_get_info as text (auto_choice: the variant solver
    !> auto chose; numbers as %.17g).  Local.
    subroutine ovk_solver_get_info_text(s, key, value, ierr)
        type(ovk_solver), intent(in) :: s
        character(len=*), intent(in) :: key
        character(len=:), allocatable, intent(out) :: value
        integer, intent(out), optional :: ierr
        character(kind=c_char), target :: buf(64)
        integer(c_int) :: rc
        buf = c_null_char
        rc = c_solver_get_info_text(s%ptr, to_c(key), buf, int(size(buf), c_size_t))
        value = from_c(c_loc(buf))
        call finish(rc, 'ovk_solver_get_info_text', ierr)
    end subroutine ovk_solver_get_info_text

    subroutine ovk_solver_get_option(s, key, value, ierr)
        type(ovk_solver), intent(in) :: s
        character(len=*), intent(in) :: key
        character(len=:), allocatable, intent(out) :: value
        integer, intent(out), optional :: ierr
        type(c_ptr) :: text
        integer(c_int) :: rc
        rc = f_solver_get_option(s%ptr, to_c(key), text) ! any length
        value = from_c(text)
        call f_free(text)
        call finish(rc, 'ovk_solver_get_option', ierr)
    end subroutine ovk_solver_get_option

    !> The options that are present, in the order of the arguments; stops at
    !> the first refused one.  Local.
    subroutine ovk_solver_set_options(s, ierr, solver, backend, precond, tol, atol, max_iter, print_level, rtol, max_it)
        type(ovk_solver), intent(inout) :: s
        integer, intent(out), optional :: ierr
        character(len=*), intent(in), optional :: solver, backend, precond
        real(c_double), intent(in), optional :: tol, atol, rtol
        integer, intent(in), optional :: max_iter, print_level, max_it
        integer(c_int) :: rc
        call set_options(s, rc, solver, backend, precond, tol, atol, max_iter, print_level, rtol, max_it)
        call finish(rc, 'ovk_solver_set_options', ierr)
    end subroutine ovk_solver_set_options

    subroutine set_options(s, rc, solver, backend, precond, tol, atol, max_iter, print_level, rtol, max_it)
        type(ovk_solver), intent(inout) :: s
        integer(c_int), intent(out) :: rc
        character(len=*), intent(in), optional :: solver, backend, precond
        real(c_double), intent(in), optional :: tol, atol, rtol
        integer, intent(in), optional :: max_iter, print_level, max_it
        integer :: st
        st = OVK_OK
        if (present(solver)) call solver_set_option_text(s, 'solver', solver, st)
        if (st == OVK_OK .and. present(backend)) call solver_set_option_text(s, 'backend', backend, st)
        if (st == OVK_OK .and. present(precond)) call solver_set_option_text(s, 'precond', precond, st)
        if (st == OVK_OK .and. present(tol)) call solver_set_option_real(s, 'rtol', tol, st)
        if (st == OVK_OK .and. present(atol)) call solver_set_option_real(s, 'atol', atol, st)
        if (st == OVK_OK .and. present(max_iter)) call solver_set_option_int(s, 'max_it', max_iter, st)
        if (st == OVK_OK .and. present(print_level)) call solver_set_option_int(s, 'print_level', print_level, st)
        if (st == OVK_OK .and. present(rtol)) call solver_set_option_real(s, 'rtol', rtol, st)
        if (st == OVK_OK .and. present(max_it)) call solver_set_option_int(s, 'max_it', max_it, st)
        rc = int(st, c_int)
    end subroutine set_options

    !> Converged when ||r|| < max(tol ||b||, atol); at most max_iter
    !> iterations.  Local.
    subroutine ovk_solver_set_tolerances(s, tol, atol, max_iter, ierr)
        type(ovk_solver), intent(inout) :: s
        real(c_double), intent(in) :: tol, atol
        integer, intent(in) :: max_iter
        integer, intent(out), optional :: ierr
        call finish(c_solver_set_tolerances(s%ptr, tol, atol, int(max_iter, c_int)), &
            'ovk_solver_set_tolerances', ierr)
    end subroutine ovk_solver_set_tolerances

    !> The coordinates of this rank's mesh nodes, xyz(dim, nnodes) (node k
    !> carries rows bs*(k-1)+1 .. bs*k of the rank), for amg's rigid-body
    !> modes (amg:bs=dim).  Copied; local, every rank the same dim.
    subroutine ovk_solver_set_coordinates(s, xyz, ierr)
        type(ovk_solver), intent(inout) :: s
        real(c_double), intent(in), contiguous :: xyz(:, :)
        integer, intent(out), optional :: ierr
        real(c_double) :: none(1)
        if (size(xyz) == 0) then
            call finish(c_solver_set_coordinates(s%ptr, int(size(xyz, 1), c_int), 0_c_int, none), &
                'ovk_solver_set_coordinates', ierr)
        else
            call finish(c_solver_set_coordinates(s%ptr, int(size(xyz, 1), c_int), int(size(xyz, 2), c_int), xyz), &
                'ovk_solver_set_coordinates', ierr)
        end if
    end subroutine ovk_solver_set_coordinates

    !> The null space of a singular A (ovk_solver_set_nullspace in
    !> solver.h): the constant when has_constant, and the columns of
    !> vectors(nlocal, k) (copied; size(vectors, 1) must be the rank's row
    !> count).  Collective; orthonormalised at the next setup.
    subroutine ovk_solver_set_nullspace(s, has_constant, vectors, ierr)
        type(ovk_solver), intent(inout) :: s
        logical, intent(in) :: has_constant
        real(c_double), intent(in), contiguous, optional :: vectors(:, :)
        integer, intent(out), optional :: ierr
        real(c_double) :: none(1)
        integer(c_int) :: flag
        flag = merge(1_c_int, 0_c_int, has_constant)
        if (.not. present(vectors)) then
            call finish(c_solver_set_nullspace(s%ptr, flag, 0_c_int, none, 0_c_int), 'ovk_solver_set_nullspace', ierr)
        else if (size(vectors) == 0) then
            call finish(c_solver_set_nullspace(s%ptr, flag, int(size(vectors, 2), c_int), none, &
                int(size(vectors, 1), c_int)), 'ovk_solver_set_nullspace', ierr)
        else
            call finish(c_solver_set_nullspace(s%ptr, flag, int(size(vectors, 2), c_int), vectors, &
                int(size(vectors, 1), c_int)), 'ovk_solver_set_nullspace', ierr)
        end if
    end subroutine ovk_solver_set_nullspace

    !> The field (0 or 1) of each of the rank's rows, fields(nlocal), for
    !> the fieldsplit preconditioner (copied).  Collective: another length
    !> or an id other than 0 or 1 is OVK_EINVAL on every rank.
    subroutine ovk_solver_set_fields(s, fields, ierr)
        type(ovk_solver), intent(inout) :: s
        integer, intent(in) :: fields(:)
        integer, intent(out), optional :: ierr
        integer(c_int) :: ids(max(size(fields), 1))
        ids(1:size(fields)) = int(fields, c_int)
        call finish(c_solver_set_fields(s%ptr, ids, int(size(fields), c_int)), 'ovk_solver_set_fields', ierr)
    end subroutine ovk_solver_set_fields

    !> fieldsplit's Schur complement approximation (a pressure mass matrix):
    !> m holds field 1's rows, each rank its own (checked at setup).  The
    !> solver keeps m alive.  Local; call it on every rank.
    subroutine ovk_solver_set_schur_matrix(s, m, ierr)
        type(ovk_solver), intent(inout) :: s
        type(ovk_matrix), intent(in) :: m
        integer, intent(out), optional :: ierr
        call finish(c_solver_set_schur_matrix(s%ptr, m%ptr), 'ovk_solver_set_schur_matrix', ierr)
    end subroutine ovk_solver_set_schur_matrix

    !> The rigid-body modes from the coordinates xyz(dim, nnodes) of the
    !> rank's nodes (dim 2: 3 modes, 3: 6; node k carries rows
    !> dim*(k-1)+1 .. dim*k) as the null space.  Collective.
    subroutine ovk_solver_set_nullspace_rigid_body(s, xyz, ierr)
        type(ovk_solver), intent(inout) :: s
        real(c_double), intent(in), contiguous :: xyz(:, :)
        integer, intent(out), optional :: ierr
        real(c_double) :: none(1)
        if (size(xyz) == 0) then
            call finish(c_solver_set_nullspace_rigid_body(s%ptr, int(size(xyz, 1), c_int), 0_c_int, none), &
                'ovk_solver_set_nullspace_rigid_body', ierr)
        else
            call finish(c_solver_set_nullspace_rigid_body(s%ptr, int(size(xyz, 1), c_int), int(size(xyz, 2), c_int), &
                xyz), 'ovk_solver_set_nullspace_rigid_body', ierr)
        end if
    end subroutine ovk_solver_set_nullspace_rigid_body

    ! The solver's callback box (made on first use); NULL for a solver not
    ! created, which the library then refuses.
    function box_of(s) result(p)
        type(ovk_solver), intent(inout) :: s
        type(c_ptr) :: p
        p = c_null_ptr
        if (.not. c_associated(s%ptr)) return
        if (.not. associated(s%cb)) allocate (s%cb)
        p = c_loc(s%cb)
    end function box_of

    !> Call monitor (see ovk_monitor_fn) at every iteration of the following
    !> solves, with ctx (kept by the library: see ovk_solver_create_operator);
    !> without monitor, remove it.  Local, but it must be the same on every
    !> rank (checked by the next setup).
    subroutine ovk_solver_set_monitor(s, monitor, ierr, ctx)
        type(ovk_solver), intent(inout) :: s
        procedure(ovk_monitor_fn), optional :: monitor
        integer, intent(out), optional :: ierr
        type(c_ptr), intent(in), optional :: ctx
        integer(c_int) :: rc
        if (present(monitor)) then
            rc = c_solver_set_monitor(s%ptr, c_funloc(monitor_trampoline), box_of(s))
        else
            rc = c_solver_set_monitor(s%ptr, c_null_funptr, c_null_ptr)
        end if
        ! the box changes only once the library took the call (not OVK_EBUSY
        ! from a callback while a solve runs through the box)
        if (rc == OVK_OK .and. associated(s%cb)) then
            s%cb%mon => null()
            s%cb%mon_ctx = c_null_ptr
            if (present(monitor)) s%cb%mon => monitor
            if (present(ctx)) s%cb%mon_ctx = ctx
        end if
        call finish(rc, 'ovk_solver_set_monitor', ierr)
    end subroutine ovk_solver_set_monitor

    !> The application's convergence test (see ovk_converged_fn) in place
    !> of the tolerances, with ctx (kept by the library); without test, back
    !> to the tolerances.  Local, the same on every rank.
    subroutine ovk_solver_set_convergence_test(s, test, ierr, ctx)
        type(ovk_solver), intent(inout) :: s
        procedure(ovk_converged_fn), optional :: test
        integer, intent(out), optional :: ierr
        type(c_ptr), intent(in), optional :: ctx
        integer(c_int) :: rc
        if (present(test)) then
            rc = c_solver_set_convergence_test(s%ptr, c_funloc(converged_trampoline), box_of(s))
        else
            rc = c_solver_set_convergence_test(s%ptr, c_null_funptr, c_null_ptr)
        end if
        if (rc == OVK_OK .and. associated(s%cb)) then
            s%cb%conv => null()
            s%cb%conv_ctx = c_null_ptr
            if (present(test)) s%cb%conv => test
            if (present(ctx)) s%cb%conv_ctx = ctx
        end if
        call finish(rc, 'ovk_solver_set_convergence_test', ierr)
    end subroutine ovk_solver_set_convergence_test

    !> The application's preconditioner z = C r (see ovk_apply_fn) instead
    !> of the precond option, with ctx (kept by the library); without
    !> precond, back to the option.  The split variants (alg2, overlap)
    !> refuse it at setup.  Local, the same on every rank; the next solve
    !> redoes the preconditioner's setup.
    subroutine ovk_solver_set_precond_fn(s, precond, ierr, ctx)
        type(ovk_solver), intent(inout) :: s
        procedure(ovk_apply_fn), optional :: precond
        integer, intent(out), optional :: ierr
        type(c_ptr), intent(in), optional :: ctx
        integer(c_int) :: rc
        if (present(precond)) then
            rc = c_solver_set_precond_fn(s%ptr, c_funloc(pc_trampoline), box_of(s))
        else
            rc = c_solver_set_precond_fn(s%ptr, c_null_funptr, c_null_ptr)
        end if
        if (rc == OVK_OK .and. associated(s%cb)) then
            s%cb%pc => null()
            s%cb%pc_ctx = c_null_ptr
            if (present(precond)) s%cb%pc => precond
            if (present(ctx)) s%cb%pc_ctx = ctx
        end if
        call finish(rc, 'ovk_solver_set_precond_fn', ierr)
    end subroutine ovk_solver_set_precond_fn

    ! The C side of every Fortran callback: ctx is the solver's callback_box.
    ! Zero rows: the library may pass NULL vectors; the callback gets empty
    ! arrays.
    function op_trampoline(s, x, y, ctx) result(status) bind(C, name='ovk__f_op_trampoline')
        type(c_ptr), value :: s, x, y, ctx
        integer(c_int) :: status
        type(callback_box), pointer :: box
        call c_f_pointer(ctx, box)
        status = apply_through(box%op, box%op_ctx, s, box, x, y)
    end function op_trampoline

    function pc_trampoline(s, x, y, ctx) result(status) bind(C, name='ovk__f_pc_trampoline')
        type(c_ptr), value :: s, x, y, ctx
        integer(c_int) :: status
        type(callback_box), pointer :: box
        call c_f_pointer(ctx, box)
        status = apply_through(box%pc, box%pc_ctx, s, box, x, y)
    end function pc_trampoline

    function apply_through(fn, uctx, s, box, x, y) result(status)
        procedure(ovk_apply_fn), pointer, intent(in) :: fn
        type(c_ptr), intent(in) :: uctx, s, x, y
        type(callback_box), pointer, intent(in) :: box
        integer(c_int) :: status
        type(ovk_solver) :: handle
        real(c_double), pointer :: xf(:), yf(:)
        real(c_double), target :: none(0)
        integer :: n
        handle%ptr = s
        handle%cb => box
        n = int(c_solver_nlocal(s))
        xf => none
        yf => none
        if (n > 0) then
            call c_f_pointer(x, xf, [n])
            call c_f_pointer(y, yf, [n])
        end if
        status = int(fn(handle, n, xf, yf, uctx), c_int)
    end function apply_through

    function converged_trampoline(s, iteration, rnorm, bnorm, rnorm0, ctx) result(verdict) &
        bind(C, name='ovk__f_converged_trampoline')
        type(c_ptr), value :: s, ctx
        integer(c_int), value :: iteration
        real(c_double), value :: rnorm, bnorm, rnorm0
        integer(c_int) :: verdict
        type(callback_box), pointer :: box
        type(ovk_solver) :: handle
        call c_f_pointer(ctx, box)
        handle%ptr = s
        handle%cb => box
        verdict = int(box%conv(handle, int(iteration), rnorm, bnorm, rnorm0, box%conv_ctx), c_int)
    end function converged_trampoline

    function monitor_trampoline(s, iteration, rnorm, rel, ctx) result(stop) &
        bind(C, name='ovk__f_monitor_trampoline')
        type(c_ptr), value :: s, ctx
        integer(c_int), value :: iteration
        real(c_double), value :: rnorm, rel
        integer(c_int) :: stop
        type(callback_box), pointer :: box
        type(ovk_solver) :: handle
        call c_f_pointer(ctx, box)
        handle%ptr = s
        handle%cb => box
        stop = 0
        if (box%mon(handle, int(iteration), rnorm, rel, box%mon_ctx)) stop = 1
    end function monitor_trampoline

    !> Record ||r||_2 of iterations 0, 1, ... of each following solve in
    !> history (res%history_len entries are written, at most size(history));
    !> without history, stop recording.  The library keeps a pointer to the
    !> array: give a contiguous array with the TARGET attribute that stays
    !> allocated while the solver records into it.  Local.
    subroutine ovk_solver_set_history(s, history, ierr)
        type(ovk_solver), intent(inout) :: s
        real(c_double), intent(inout), target, optional :: history(:) ! not CONTIGUOUS: no copy is made
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        logical :: on
        on = present(history)
        if (on) on = size(history) > 0
        if (on) then
            if (dense_real(history)) then
                rc = c_solver_set_history(s%ptr, c_loc(history(1)), int(size(history), c_int))
            else
                rc = fail(OVK_EINVAL, 'ovk_solver_set_history: the array is not contiguous (the library keeps '// &
                    'its address)')
            end if
        else
            rc = c_solver_set_history(s%ptr, c_null_ptr, 0_c_int)
        end if
        call finish(rc, 'ovk_solver_set_history', ierr)
    end subroutine ovk_solver_set_history

    !> Reduce through red (borrowed: it must be on the solver's
    !> communicator and outlive the solver's use of it) instead of a reducer
    !> made from the backend option; without red, back to the option.
    !> Local, the same on every rank; the next solve sets up with it.
    subroutine ovk_solver_set_reducer(s, red, ierr)
        type(ovk_solver), intent(inout) :: s
        type(ovk_reducer), intent(in), optional :: red
        integer, intent(out), optional :: ierr
        if (present(red)) then
            call finish(c_solver_set_reducer(s%ptr, red%ptr), 'ovk_solver_set_reducer', ierr)
        else
            call finish(c_solver_set_reducer(s%ptr, c_null_ptr), 'ovk_solver_set_reducer', ierr)
        end if
    end subroutine ovk_solver_set_reducer

    !> From inside a callback: drive the reductions in flight.  Local.
    subroutine ovk_solver_progress(s, ierr)
        type(ovk_solver), intent(in) :: s
        integer, intent(out), optional :: ierr
        call finish(c_solver_progress(s%ptr), 'ovk_solver_progress', ierr)
    end subroutine ovk_solver_progress

    !> Check and agree the options, make the reducer, the work vectors and
    !> the preconditioner: what is not made yet or an option changed since
    !> (one small reduction when nothing changed).  Collective; optional: a
    !> solve does it by itself.
    subroutine ovk_solver_setup(s, ierr)
        type(ovk_solver), intent(inout) :: s
        integer, intent(out), optional :: ierr
        call finish(c_solver_setup(s%ptr), 'ovk_solver_setup', ierr)
    end subroutine ovk_solver_setup

    !> Drop the space that the option recycle keeps across solves (rpipecg,
    !> gcrodr): the next solve starts from nothing.  Call it on every rank,
    !> e.g. when a user operator's action changes (new values of a matrix
    !> are seen by themselves).  Local.
    subroutine ovk_solver_recycle_reset(s, ierr)
        type(ovk_solver), intent(inout) :: s
        integer, intent(out), optional :: ierr
        call finish(c_solver_recycle_reset(s%ptr), 'ovk_solver_recycle_reset', ierr)
    end subroutine ovk_solver_recycle_reset

    !> Solve A x = b; x is the initial guess on entry (zeroed first with
    !> initial_guess_zero).  Collective; sets up first what is not.  ierr:
    !> OVK_OK when converged, else why not (OVK_EMAXIT, OVK_ESTOPPED,
    !> OVK_EDIVERGED, ...); result is filled in every case.
    subroutine solver_solve_vectors(s, b, x, result, ierr)
        type(ovk_solver), intent(inout) :: s
        type(ovk_vector), intent(in) :: b
        type(ovk_vector), intent(inout) :: x
        type(ovk_result), intent(out) :: result
        integer, intent(out), optional :: ierr
        call finish(c_solver_solve(s%ptr, b%ptr, x%ptr, result), 'ovk_solver_solve', ierr)
    end subroutine solver_solve_vectors

    !> The same on this rank's arrays b and x (ovk_solver_nlocal(s) values
    !> each, contiguous), used in place for the call.
    subroutine solver_solve_arrays(s, b, x, result, ierr)
        type(ovk_solver), intent(inout) :: s
        real(c_double), intent(in), target, contiguous :: b(:)
        real(c_double), intent(inout), target, contiguous :: x(:)
        type(ovk_result), intent(out) :: result
        integer, intent(out), optional :: ierr
        character(len=160) :: msg
        type(c_ptr) :: vb, vx
        integer(c_int) :: rc, n
        vb = c_null_ptr
        vx = c_null_ptr
        rc = OVK_OK
        n = c_solver_nlocal(s%ptr)
        if (c_associated(s%ptr) .and. (size(b) /= n .or. size(x) /= n)) then
            write (msg, '(a,2(i0,a),i0,a)') 'ovk_solver_solve: b has ', size(b), ' values and x ', size(x), &
                ', the solver has ', n, ' rows on this rank'
            rc = fail(OVK_EINVAL, trim(msg))
        else if (c_associated(s%ptr)) then
            if (n == 0) then
                rc = c_solver_vector_create(s%ptr, c_null_ptr, vb)
                if (rc == OVK_OK) rc = c_solver_vector_create(s%ptr, c_null_ptr, vx)
            else
                rc = c_solver_vector_create(s%ptr, c_loc(b), vb)
                if (rc == OVK_OK) rc = c_solver_vector_create(s%ptr, c_loc(x), vx)
            end if
        end if
        if (rc /= OVK_OK) then
            ! Take part in the solve's agreement with no vectors and this
            ! rank's cause, which the other ranks then report.
            call c_vector_destroy(vb)
            vb = c_null_ptr
            rc = f_solver_refuse_solve(s%ptr, rc)
            rc = c_solver_solve(s%ptr, c_null_ptr, c_null_ptr, result)
        else
            rc = c_solver_solve(s%ptr, vb, vx, result)
        end if
        call c_vector_destroy(vb)
        call c_vector_destroy(vx)
        call finish(rc, 'ovk_solver_solve', ierr)
    end subroutine solver_solve_arrays

    !> Solve the k = size(b) systems A x(j) = b(j) together (C's
    !> ovk_solver_solve_many: one reduction and one matrix pass per step for
    !> all of them); result(j) is system j's.  Collective.  ierr: OVK_OK when
    !> every system converged, else the first failing system's status (its
    !> own reason in its result; the others unharmed), or an argument error
    !> (size(x) or size(result) not size(b), k = 0) on every rank.
    subroutine solver_solve_many_vectors(s, b, x, result, ierr)
        type(ovk_solver), intent(inout) :: s
        type(ovk_vector), intent(in) :: b(:)
        type(ovk_vector), intent(inout) :: x(:)
        type(ovk_result), intent(out) :: result(:)
        integer, intent(out), optional :: ierr
        type(c_ptr) :: pb(max(1, size(b))), px(max(1, size(b)))
        integer :: j, k
        integer(c_int) :: rc
        k = size(b)
        do j = 1, k
            pb(j) = b(j)%ptr
            if (j <= size(x)) px(j) = x(j)%ptr
        end do
        if (size(x) /= k .or. size(result) < k) then ! refused in the solve's agreement
            rc = f_solver_refuse_solve(s%ptr, fail(OVK_EINVAL, 'ovk_solver_solve_many: x and result must have size(b) &
                &elements'))
            k = min(k, size(x), size(result))
        end if
        rc = c_solver_solve_many(s%ptr, int(k, c_int), pb, px, result)
        call finish(rc, 'ovk_solver_solve_many', ierr)
    end subroutine solver_solve_many_vectors

    !> The same on this rank's arrays: column j of b(nlocal, k) and
    !> x(nlocal, k) is system j (used in place for the call).
    subroutine solver_solve_many_arrays(s, b, x, result, ierr)
        type(ovk_solver), intent(inout) :: s
        real(c_double), intent(in), target, contiguous :: b(:, :)
        real(c_double), intent(inout), target, contiguous :: x(:, :)
        type(ovk_result), intent(out) :: result(:)
        integer, intent(out), optional :: ierr
        type(c_ptr) :: pb(max(1, size(b, 2))), px(max(1, size(b, 2)))
        integer :: j, k
        integer(c_int) :: rc, n
        k = size(b, 2)
        n = c_solver_nlocal(s%ptr)
        pb = c_null_ptr
        px = c_null_ptr
        rc = OVK_OK
        if (size(b, 1) /= n .or. size(x, 1) /= n .or. size(x, 2) /= k .or. size(result) < k) then
            rc = fail(OVK_EINVAL, 'ovk_solver_solve_many: b and x must be (nlocal, k), result k long')
        end if
        do j = 1, k
            if (rc /= OVK_OK) exit
            if (n == 0) then
                rc = c_solver_vector_create(s%ptr, c_null_ptr, pb(j))
                if (rc == OVK_OK) rc = c_solver_vector_create(s%ptr, c_null_ptr, px(j))
            else
                rc = c_solver_vector_create(s%ptr, c_loc(b(1, j)), pb(j))
                if (rc == OVK_OK) rc = c_solver_vector_create(s%ptr, c_loc(x(1, j)), px(j))
            end if
        end do
        if (rc /= OVK_OK) then ! the other ranks hear of it in the solve's agreement: a NULL element here
            rc = f_solver_refuse_solve(s%ptr, rc)
        end if
        rc = c_solver_solve_many(s%ptr, int(k, c_int), pb, px, result)
        do j = 1, k
            call c_vector_destroy(pb(j))
            call c_vector_destroy(px(j))
        end do
        call finish(rc, 'ovk_solver_solve_many', ierr)
    end subroutine solver_solve_many_arrays

    !> Inside a callback of ovk_solver_solve_many: the system being solved,
    !> 1-based (0 outside a solve_many).  Local.
    integer function ovk_solver_system_index(s)
        type(ovk_solver), intent(in) :: s
        ovk_solver_system_index = int(c_solver_system_index(s%ptr)) + 1
    end function ovk_solver_system_index

    !> Rows of the solver on this rank.
    pure integer function ovk_solver_nlocal(s)
        type(ovk_solver), intent(in) :: s
        ovk_solver_nlocal = int(c_solver_nlocal(s%ptr))
    end function ovk_solver_nlocal

    !> Seconds of the last ovk_solver_setup, max over ranks.
    real(c_double) function ovk_solver_setup_time(s)
        type(ovk_solver), intent(in) :: s
        ovk_solver_setup_time = c_solver_setup_time(s%ptr)
    end function ovk_solver_setup_time

    !> The solver's communicator.
    function ovk_solver_comm(s) result(comm)
        type(ovk_solver), intent(in) :: s
        type(MPI_Comm) :: comm
        comm%MPI_VAL = f_solver_comm(s%ptr)
    end function ovk_solver_comm


    ! ======================================================================
    ! reducers and split-phase reductions (reduce.h)
    ! ======================================================================

    !> A reducer on comm (the library keeps a duplicate) from spec
    !> "name[:key=value,...]"; '' takes $OVK_REDUCE_BACKEND, else blocking.
    !> Collective; the same spec on every rank (else OVK_EBACKEND
    !> everywhere); OVK_EBACKEND for an unknown name, OVK_EOPTION for a bad
    !> option.
    subroutine ovk_reducer_create(comm, spec, red, ierr)
        type(MPI_Comm), intent(in) :: comm
        character(len=*), intent(in) :: spec
        type(ovk_reducer), intent(out) :: red
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        rc = OVK_OK
        if (index(spec, c_null_char) > 0) rc = fail(OVK_EOPTION, 'backend '//trim(spec)// &
                                                   ' holds a NUL character (char(0))') ! C would read only up to it
        rc = f_agree(int(comm%MPI_VAL, c_int), rc) ! collective: no rank creates alone
        if (rc == OVK_OK) rc = c_reducer_create(int(comm%MPI_VAL, c_int), to_c(spec), red%ptr)
        call finish(rc, 'ovk_reducer_create', ierr)
    end subroutine ovk_reducer_create

    !> Free a reducer (collective; one never created is allowed).  OVK_EBUSY
    !> while requests are outstanding, or (on the calling rank alone) while a
    !> solve uses it.
    subroutine ovk_reducer_destroy(red, ierr)
        type(ovk_reducer), intent(inout) :: red
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        rc = c_reducer_destroy(red%ptr)
        if (rc == OVK_OK) red%ptr = c_null_ptr
        call finish(rc, 'ovk_reducer_destroy', ierr)
    end subroutine ovk_reducer_destroy

    !> The backend's name, e.g. "nbc".
    function ovk_reducer_name(red) result(text)
        type(ovk_reducer), intent(in) :: red
        character(len=:), allocatable :: text
        text = from_c(c_reducer_name(red%ptr))
    end function ovk_reducer_name

    !> The spec the reducer was made from, defaults filled in.
    function ovk_reducer_spec(red) result(text)
        type(ovk_reducer), intent(in) :: red
        character(len=:), allocatable :: text
        text = ''
        if (c_associated(red%ptr)) text = from_c(c_reducer_spec(red%ptr))
    end function ovk_reducer_spec

    !> Drive every reduction in flight on red.  Local.
    subroutine ovk_reducer_progress(red, ierr)
        type(ovk_reducer), intent(inout) :: red
        integer, intent(out), optional :: ierr
        call finish(c_reducer_progress(red%ptr), 'ovk_reducer_progress', ierr)
    end subroutine ovk_reducer_progress

    !> Start reducing sendbuf into recvbuf (same size; the same array for
    !> in place) with op (OVK_SUM, OVK_MAX, OVK_MIN).  Every rank starts the
    !> same reductions in the same order.  The library reads sendbuf and
    !> writes recvbuf until the request completes (ovk_reduce_wait): give
    !> arrays with the TARGET and ASYNCHRONOUS attributes, leave them alone
    !> until then.  Blocking backends complete the reduction in this call.
    !> A start refused on a rank (sizes, a buffer not contiguous) starts
    !> nothing there: every rank must pass the same kind of buffers.
    subroutine reduce_start_real(red, sendbuf, recvbuf, op, req, ierr)
        type(ovk_reducer), intent(inout) :: red
        real(c_double), intent(in), target, asynchronous :: sendbuf(:)
        real(c_double), intent(inout), target, asynchronous :: recvbuf(:)
        integer, intent(in) :: op
        type(ovk_request), intent(out) :: req
        integer, intent(out), optional :: ierr
        integer(c_int), parameter :: OVK_DOUBLE = 0
        type(c_ptr) :: sp, rp
        sp = c_null_ptr
        rp = c_null_ptr
        if (size(sendbuf) > 0) sp = c_loc(sendbuf(1))
        if (size(recvbuf) > 0) rp = c_loc(recvbuf(1))
        call reduce_start(red, sp, rp, size(sendbuf), size(recvbuf), dense_real(sendbuf) .and. dense_real(recvbuf), &
            OVK_DOUBLE, op, req, ierr)
    end subroutine reduce_start_real

    subroutine reduce_start_int(red, sendbuf, recvbuf, op, req, ierr)
        type(ovk_reducer), intent(inout) :: red
        integer(int64), intent(in), target, asynchronous :: sendbuf(:)
        integer(int64), intent(inout), target, asynchronous :: recvbuf(:)
        integer, intent(in) :: op
        type(ovk_request), intent(out) :: req
        integer, intent(out), optional :: ierr
        integer(c_int), parameter :: OVK_INT64 = 1
        type(c_ptr) :: sp, rp
        sp = c_null_ptr
        rp = c_null_ptr
        if (size(sendbuf) > 0) sp = c_loc(sendbuf(1))
        if (size(recvbuf) > 0) rp = c_loc(recvbuf(1))
        call reduce_start(red, sp, rp, size(sendbuf), size(recvbuf), dense_int(sendbuf) .and. dense_int(recvbuf), &
            OVK_INT64, op, req, ierr)
    end subroutine reduce_start_int

    subroutine reduce_start(red, send, recv, nsend, nrecv, dense, dtype, op, req, ierr)
        type(ovk_reducer), intent(inout) :: red
        type(c_ptr), intent(in) :: send, recv
        integer, intent(in) :: nsend, nrecv, op
        logical, intent(in) :: dense
        integer(c_int), intent(in) :: dtype
        type(ovk_request), intent(out) :: req
        integer, intent(out), optional :: ierr
        character(len=120) :: msg
        integer(c_int) :: rc
        if (nsend /= nrecv) then
            write (msg, '(a,i0,a,i0,a)') 'ovk_reduce_start: sendbuf has ', nsend, ' elements, recvbuf ', nrecv, &
                ' (want the same)'
            rc = fail(OVK_EINVAL, trim(msg))
        else if (.not. dense) then
            rc = fail(OVK_EINVAL, 'ovk_reduce_start: a buffer is not contiguous (the library keeps its address)')
        else
            rc = c_reduce_start(red%ptr, send, recv, int(nsend, c_int), dtype, int(op, c_int), req%ptr)
        end if
        call finish(rc, 'ovk_reduce_start', ierr)
    end subroutine reduce_start

    !> done = .true. once the request is complete (then waiting costs
    !> nothing).  Drives progress.  Local.
    subroutine ovk_reduce_test(req, done, ierr)
        type(ovk_request), intent(inout) :: req
        logical, intent(out) :: done
        integer, intent(out), optional :: ierr
        integer(c_int) :: d, rc
        d = 0
        rc = c_reduce_test(req%ptr, d)
        done = d /= 0
        call finish(rc, 'ovk_reduce_test', ierr)
    end subroutine ovk_reduce_test

    !> Complete a request from ovk_reduce_start and free it: recvbuf then
    !> holds the result.  (ovk_reduce_wait and ovk_request_free of C in one.)
    subroutine ovk_reduce_wait(req, ierr)
        type(ovk_request), intent(inout) :: req
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc, rc2
        rc = c_reduce_wait(req%ptr)
        rc2 = c_request_free(req%ptr) ! complete, failed or not
        if (rc2 == OVK_OK) req%ptr = c_null_ptr
        if (rc == OVK_OK) rc = rc2
        call finish(rc, 'ovk_reduce_wait', ierr)
    end subroutine ovk_reduce_wait

    !> Return a completed request that was only tested (ovk_reduce_test)
    !> to its reducer.  OVK_EBUSY while in flight.
    subroutine ovk_request_free(req, ierr)
        type(ovk_request), intent(inout) :: req
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc
        rc = c_request_free(req%ptr)
        if (rc == OVK_OK) req%ptr = c_null_ptr
        call finish(rc, 'ovk_request_free', ierr)
    end subroutine ovk_request_free

    !> Split-phase inner products: the k = size(x) local dot products
    !> <x(i), y(i)> (vectors of one layout, k <= OVK_DOT_MAX), their global
    !> sums started as one reduction into result(1:k), which holds them
    !> once ovk_dot_wait returned (undefined until then: give result the
    !> TARGET and ASYNCHRONOUS attributes).  Every rank calls it in the same
    !> order; it may block until all have (blocking backends).
    subroutine ovk_dot_init(red, x, y, result, req, ierr)
        type(ovk_reducer), intent(inout) :: red
        type(ovk_vector), intent(in) :: x(:), y(:)
        real(c_double), intent(inout), target, asynchronous :: result(:)
        type(ovk_request), intent(out) :: req
        integer, intent(out), optional :: ierr
        type(c_ptr) :: xp(max(size(x), 1)), yp(max(size(x), 1))
        character(len=120) :: msg
        integer(c_int) :: rc
        integer :: i
        if (size(y) /= size(x) .or. size(result) < size(x)) then
            write (msg, '(a,3(i0,a))') 'ovk_dot_init: ', size(x), ' vectors x, ', size(y), ' vectors y, ', &
                size(result), ' results (want k, k and at least k)'
            rc = fail(OVK_EINVAL, trim(msg))
        else if (.not. dense_real(result) .or. size(result) == 0) then
            rc = fail(OVK_EINVAL, 'ovk_dot_init: result is empty or not contiguous (the library keeps its address)')
        else
            xp = c_null_ptr
            yp = c_null_ptr
            do i = 1, size(x)
                xp(i) = x(i)%ptr
                yp(i) = y(i)%ptr
            end do
            rc = c_dot_init(red%ptr, int(size(x), c_int), xp, yp, c_loc(result(1)), req%ptr)
        end if
        call finish(rc, 'ovk_dot_init', ierr)
    end subroutine ovk_dot_init

    !> Complete and free a request of ovk_dot_init: result holds the sums.
    subroutine ovk_dot_wait(req, ierr)
        type(ovk_request), intent(inout) :: req
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc, rc2
        rc = c_reduce_wait(req%ptr) ! C's ovk_dot_wait, but freeing a failed request too
        rc2 = c_request_free(req%ptr)
        if (rc2 == OVK_OK) req%ptr = c_null_ptr
        if (rc == OVK_OK) rc = rc2
        call finish(rc, 'ovk_dot_wait', ierr)
    end subroutine ovk_dot_wait

    ! ======================================================================
    ! the options database, the view, the solver types (solver.h, pcg.h)
    ! ======================================================================

    !> Hand the program's arguments to the options database (C's
    !> ovk_options_set_args): its entries are then the words of
    !> $OVK_OPTIONS, then these, the later of two entries of one name
    !> winning.  Without args the module reads the command line itself
    !> (get_command_argument(1 ..)); args(:) gives the words instead, as
    !> an argv without the program's name (trailing blanks of each word
    !> dropped).  The library copies the words: the module's argv is
    !> freed on return, args stays the caller's.  Local; call it once,
    !> after MPI_Init; it replaces what an earlier call gave.
    subroutine ovk_options_set_args(ierr, args)
        integer, intent(out), optional :: ierr
        character(len=*), intent(in), optional :: args(:)
        character(kind=c_char), allocatable, target :: chars(:)
        type(c_ptr), allocatable :: argv(:)
        character(len=:), allocatable :: word
        integer :: n, i, k, l, total
        if (present(args)) then
            n = size(args)
        else
            n = command_argument_count()
        end if
        total = 0
        do i = 0, n
            total = total + len(arg_word(i, args)) + 1
        end do
        ! argv(1) the program, argv(n + 2) NULL as C's argv[argc]; the words
        ! NUL-terminated one after the other in chars
        allocate (chars(total), argv(n + 2))
        k = 1
        do i = 0, n
            word = arg_word(i, args)
            argv(i + 1) = c_loc(chars(k))
            do l = 1, len(word)
                chars(k) = word(l:l)
                k = k + 1
            end do
            chars(k) = c_null_char
            k = k + 1
        end do
        argv(n + 2) = c_null_ptr
        call finish(c_options_set_args(int(n + 1, c_int), argv), 'ovk_options_set_args', ierr)
    end subroutine ovk_options_set_args

    ! Word i of the command line (0: the program), or args(i) when given.
    function arg_word(i, args) result(word)
        integer, intent(in) :: i
        character(len=*), intent(in), optional :: args(:)
        character(len=:), allocatable :: word
        integer :: n
        if (i >= 1 .and. present(args)) then
            word = trim(args(i))
            return
        end if
        call get_command_argument(i, length=n)
        allocate (character(len=n) :: word)
        if (n > 0) call get_command_argument(i, word)
    end function arg_word

    !> Set every option of the database given as -[prefix]ovk_KEY (prefix
    !> absent or '': -ovk_KEY; letters, digits and '_').  Collective over
    !> the solver's communicator: a bad value is OVK_EOPTION on every rank,
    !> the detail naming the entry; names of solvers, backends and
    !> preconditioners are checked at the next setup.  Call it after the
    !> program's own ovk_solver_set_option calls, so that the command line
    !> overrides them.
    subroutine ovk_solver_set_from_options(s, ierr, prefix)
        type(ovk_solver), intent(inout) :: s
        integer, intent(out), optional :: ierr
        character(len=*), intent(in), optional :: prefix
        if (present(prefix)) then
            call finish(c_solver_set_from_options(s%ptr, to_c(prefix)), 'ovk_solver_set_from_options', ierr)
        else
            call finish(c_solver_set_from_options(s%ptr, to_c('')), 'ovk_solver_set_from_options', ierr)
        end if
    end subroutine ovk_solver_set_from_options

    !> The value of the entry -name ('-n' or 'n') of the database: found =
    !> .true. and value set ('' for a flag given alone as text, 1 as an
    !> integer), or found = .false. and value untouched.  Marks the entry
    !> used.  Local; OVK_EOPTION for a value that is not an integer or a
    !> number.
    subroutine options_get_text(name, value, found, ierr)
        character(len=*), intent(in) :: name
        character(len=:), allocatable, intent(inout) :: value
        logical, intent(out) :: found
        integer, intent(out), optional :: ierr
        type(c_ptr) :: text
        integer(c_int) :: rc, have
        have = 0
        rc = f_options_get(to_c(name), text, have) ! any length
        found = rc == OVK_OK .and. have /= 0
        if (found) value = from_c(text)
        call f_free(text)
        call finish(rc, 'ovk_options_get', ierr)
    end subroutine options_get_text

    subroutine options_get_int(name, value, found, ierr)
        character(len=*), intent(in) :: name
        integer, intent(inout) :: value
        logical, intent(out) :: found
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc, have, v
        have = 0
        v = int(value, c_int)
        rc = c_options_get_int(to_c(name), v, have)
        found = rc == OVK_OK .and. have /= 0
        if (found) value = int(v)
        call finish(rc, 'ovk_options_get', ierr)
    end subroutine options_get_int

    subroutine options_get_real(name, value, found, ierr)
        character(len=*), intent(in) :: name
        real(c_double), intent(inout) :: value
        logical, intent(out) :: found
        integer, intent(out), optional :: ierr
        integer(c_int) :: rc, have
        real(c_double) :: v
        have = 0
        v = value
        rc = c_options_get_real(to_c(name), v, have)
        found = rc == OVK_OK .and. have /= 0
        if (found) value = v
        call finish(rc, 'ovk_options_get', ierr)
    end subroutine options_get_real

    !> How many of the library's entries (names containing 'ovk_', and
    !> every entry of $OVK_OPTIONS) no call has read; with unit, they are
    !> also listed there, one line each ("ovk: option -ovk_precnd ic0 was
    !> not used").  Local.  A negative result is a status (OVK_ENOMEM).
    integer function ovk_options_left(unit)
        integer, intent(in), optional :: unit
        type(c_ptr) :: text
        integer(c_size_t) :: n
        ovk_options_left = int(f_options_left(merge(1_c_int, 0_c_int, present(unit)), text, n))
        if (present(unit) .and. ovk_options_left >= 0) call write_lines(text, unit)
        call f_free(text)
    end function ovk_options_left

    !> Unless -ovk_options_left 0: rank 0 of MPI_COMM_WORLD warns of the
    !> entries ovk_options_left would list, on C's stdout (the
    !> module flushes output_unit first, the C side its stdout after).
    !> Then frees the database.  left: how many were left.  Local; call it
    !> before MPI_Finalize.
    subroutine ovk_options_finalize(ierr, left)
        integer, intent(out), optional :: ierr
        integer, intent(out), optional :: left
        integer(c_int) :: rc
        flush (output_unit)
        rc = f_options_finalize()
        if (present(left)) left = max(int(rc), 0)
        call finish(min(rc, 0_c_int), 'ovk_options_finalize', ierr)
    end subroutine ovk_options_finalize

    !> Free the database (no listing).  Local.
    subroutine ovk_options_clear()
        call c_options_clear()
    end subroutine ovk_options_clear

    !> Print the solver's effective configuration (C's ovk_solver_view: the
    !> variant, the preconditioner, the backend as resolved and where it
    !> came from, the tolerances, the monitors, the matrix, every option)
    !> on unit (default output_unit) through Fortran I/O.  Local: call it on
    !> one rank.  (-ovk_view prints the same on rank 0 after each setup, on
    !> C's stdout.)
    subroutine ovk_solver_view(s, ierr, unit)
        type(ovk_solver), intent(in) :: s
        integer, intent(out), optional :: ierr
        integer, intent(in), optional :: unit
        type(c_ptr) :: text
        integer(c_size_t) :: n
        integer(c_int) :: rc
        rc = f_solver_view(s%ptr, text, n)
        if (rc == OVK_OK) then
            if (present(unit)) then
                call write_lines(text, unit)
            else
                call write_lines(text, output_unit)
            end if
        end if
        call f_free(text)
        call finish(rc, 'ovk_solver_view', ierr)
    end subroutine ovk_solver_view

    ! The lines of a C text (NUL-terminated, each ended by a newline) on unit.
    subroutine write_lines(text, unit)
        type(c_ptr), intent(in) :: text
        integer, intent(in) :: unit
        character(len=:), allocatable :: all
        integer :: at, nl
        all = from_c(text)
        at = 1
        do while (at <= len(all))
            nl = index(all(at:), achar(10))
            if (nl == 0) nl = len(all) - at + 2
            write (unit, '(a)') all(at:at + nl - 2)
            at = at + nl
        end do
    end subroutine write_lines

    !> How many solver types (variants) the library has.
    pure integer function ovk_solver_type_count()
        ovk_solver_type_count = int(c_solver_type_count())
    end function ovk_solver_type_count

    !> The name of solver type i (1 .. ovk_solver_type_count(); '' outside),
    !> as the option solver takes it.
    function ovk_solver_type_name(i) result(text)
        integer, intent(in) :: i
        character(len=:), allocatable :: text
        text = from_c(c_solver_type_name(int(i - 1, c_int)))
    end function ovk_solver_type_name

    !> One line about solver type i (1 .. ovk_solver_type_count(); ''
    !> outside).
    function ovk_solver_type_description(i) result(text)
        integer, intent(in) :: i
        character(len=:), allocatable :: text
        text = from_c(c_solver_type_description(int(i - 1, c_int)))
    end function ovk_solver_type_description

    !> How many preconditioners this build has.
    pure integer function ovk_precond_type_count()
        ovk_precond_type_count = int(c_precond_type_count())
    end function ovk_precond_type_count

    !> The name of preconditioner i (1 .. ovk_precond_type_count(); ''
    !> outside), as the option precond takes it.
    function ovk_precond_type_name(i) result(text)
        integer, intent(in) :: i
        character(len=:), allocatable :: text
        text = from_c(c_precond_type_name(int(i - 1, c_int)))
    end function ovk_precond_type_name

end module ovkrylov
