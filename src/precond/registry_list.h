/* The preconditioners' registry list: every preconditioner once, in the
 * order the listings show them, with what a user reads of it -- its name,
 * another accepted name (or NULL), a one-line description and its spec's
 * keys ("key=values: meaning; ..." or "").  The preconditioner's file
 * keeps only the math: its ops, `const ovk__pc_type ovk__pc_NAME`
 * (precond.h).  registry.c reads this list with OVK__PC(name, alias,
 * description, keys) and OVK__PC_ABSENT(name, why) (one this build leaves
 * out, and the message a user who asks for it gets) defined for each use:
 * the ops' declarations, the lookup table, the listings
 * (ovk_precond_type_*, ovk_precond_print: -help and -ovk_help) and the
 * docs' generated lists.  A new preconditioner is its file and one entry
 * here. */

OVK__PC(jacobi, "diag",
                "Jacobi: C = diag(A)^-1 (hypre's DiagScale; split as diag(A)^-1/2)",
                "")
OVK__PC(none, NULL,
              "no preconditioner: C = I",
              "")
OVK__PC(ic0, NULL,
             "block Jacobi IC(0): incomplete Cholesky of each rank's diagonal block, no communication",
             "")
OVK__PC(ssor, NULL,
              "block Jacobi SSOR (symmetric Gauss-Seidel at omega=1) on each rank's diagonal block",
              "omega=W: relaxation in (0, 2), default 1")
OVK__PC(cheby, NULL,
               "Chebyshev polynomial in the Jacobi-scaled operator, bounds from a Lanczos estimate at setup",
               "degree=K: polynomial degree 1-64 (3), each application K-1 matvecs; emin=E,emax=E: the "
               "eigenvalue bounds of D^-1 A instead of the estimate")
OVK__PC(ilu0, NULL,
              "block Jacobi ILU(0): incomplete LU of each rank's diagonal block, no communication, any matrix",
              "precision=double|single: the factor's values as the sweeps read them (double)")
OVK__PC(eisenstat, NULL,
                   "block SSOR (M = (D/w + L) (D/w)^-1 (D/w + U) on each rank's block), any matrix; "
                   "split form with Eisenstat's trick for bicgstab",
                   "omega=(0.001..1.999): the relaxation (1: symmetric Gauss-Seidel)")
OVK__PC(fieldsplit, NULL,
                    "field split for [[A, B^T], [B, -C]] (fields: ovk_solver_set_fields): block diagonal (SPD, "
                    "minres) or triangular (gmres) with a Schur complement approximation",
                    "type=diag|lower|upper (diag: SPD, for minres and CG; lower, upper: block triangular, for gmres, "
                    "fgmres); 0=PRECOND: field 0's block A (amg); 1=PRECOND: the Schur approximation (jacobi); "
                    "a field's PRECOND is a name with its defaults, or with keys of its own (0=amg:bs=3,agg_levels=0: "
                    "the keys after it up to type, schur, 0 or 1), not fieldsplit; schur=selfp|user|a11: C + B "
                    "diag(A)^-1 B^T assembled, or ovk_solver_set_schur_matrix's (user when one is set, else selfp; a11 "
                    "the same, as PETSc names it: the PETSc plug-in sets the Pmat's (1,1) block)")
OVK__PC(amg, "boomeramg",
             "algebraic multigrid: one V-cycle over hypre BoomerAMG's hierarchy or our aggregation's (symmetric smoothing)",
             "setup=boomeramg|agg (boomeramg: hypre's classical hierarchy, in builds with hypre; agg: our smoothed "
             "aggregation, cycle=ovk, the default without hypre); agg_smooth=0|1 (1, setup=agg: smoothed prolongator); agg_mis2=N (1, setup=agg: levels "
             "aggregated on a distance-2 MIS, the rest on a distance-1 MIS); agg_threshold=0..1 (0, setup=agg: "
             "strength of connection); agg_corr=1..2 (1, setup=agg: coarse corrections times this); agg_gather=R (0, setup=agg: a coarse level "
             "of fewer rows per rank is gathered onto fewer ranks; 0: never); cycle=ovk|hypre (ovk: ours on hypre's hierarchy); strong_threshold=0..1 (0.25; 0.5 when bs>=3); "
             "coarsen=hmis|pmis|falgout|cljp (pmis; hmis when bs>1); interp=ext+i|ext|classical|direct|multipass; pmax=N (4, 0: no "
             "limit); smoother=cheby|l1jacobi (cycle=ovk, cheby) or l1gs|sgs|l1jacobi|cheby (cycle=hypre, l1gs); "
             "degree=N (1, cheby steps, cycle=ovk); ratio=R (4; 10 when bs>1: cheby interval emax/emin, cycle=ovk); "
             "precision=single|double (single, double with a null space: the coarse levels' values and the "
             "interpolation in float, cycle=ovk); sweeps=N (1); "
             "max_levels=N (25); agg_levels=N (1; 0 when bs>1: levels of aggressive coarsening); coarse_size=N (9); bs=N (1, "
             "unknowns per node); nodal=0..6 (4 when bs>1); rbm=0|1 (1: rigid-body modes from the "
             "solver's near-null space or coordinates); rbm_level=N (2, the first level whose interpolation takes them; 0: all); "
             "qmax=N (4); reuse=K (20 with cycle=ovk, value updates served by the kept interpolation; 0: none); reuse_tol=T "
             "(0.3, a row's relative change that forces a full setup, with reuse_scale=diag that of S^-1 A S^-1); "
             "reuse_coarse=keep|galerkin (keep: the full setup's "
             "coarse levels, level 0's smoother refreshed; galerkin: P^T A P again); reuse_scale=diag|none (diag with "
             "keep: level 0's transfers those of S^-1 P_0, s_i = sqrt(a_ii / a_ii of the full setup), for A = S A_0 S the "
             "Galerkin coarse correction on the kept S^-1 P_0; s_i outside [2^-32, 2^32]: a full setup); print=0..3 "
             "(hypre's print level)")
