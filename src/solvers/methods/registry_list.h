/* The solvers' registry list: every variant once, in the order the
 * listings show them, with what a user reads of it -- its name, a one-line
 * description and its spec's keys ("key=values: meaning; ..." or "").
 * The variant's file keeps only the math: its ops, `const
 * ovk__solver_ops ovk__solver_NAME` (solver.h).  registry.c reads this
 * list with OVK__SOLVER(name, description, keys) defined for each use: the
 * ops' declarations, the table of registered variants (ovk__solver), and
 * through it the lookup, ovk_solver_type_*, -help, -ovk_help and the
 * generated lists of the docs.  A new variant is its file and one entry
 * here. */

/* gmres's and fgmres's keys (one parser: ovk__gmres_parse) */
#ifndef OVK__GMRES_KEYS
#define OVK__GMRES_KEYS \
    "restart=1..500: the Krylov space's dimension before a restart (30); orth=dcgs2|cgs: classical " \
    "Gram-Schmidt with the second pass delayed into the next step's reduction (default: one reduction per " \
    "step, two passes' orthogonality), or classical passes as refine= says; refine=never|ifneeded|always " \
    "(orth=cgs, implied by refine=): one pass and the norm summed after it (PETSc's default), a second pass " \
    "when the norm fell below 1/sqrt 2 (CGS2), or at every step; basis=double|single: the Krylov basis stored " \
    "in double (default) or float (half the Gram-Schmidt bytes, double arithmetic); orthloss=0|1: measure " \
    "||I - V^T V||_F of each cycle's basis (one more reduction per cycle), shown by the view"
#endif

OVK__SOLVER(alg1, "PCG-Algorithm1 (hypre's PCG): three blocking reductions per iteration, the fewest vectors and "
                  "bytes, any preconditioner",
                  "")
OVK__SOLVER(alg2, "PCG-Algorithm2: split preconditioner C = L^-T L^-1 (jacobi, none, ic0, ssor), three blocking "
                  "reductions, x updated one step late",
                  "")
OVK__SOLVER(overlap, "PCG-Overlap: alg2 with each of its three reductions started early and completed late, behind a "
                     "scaling or an axpy",
                     "")
OVK__SOLVER(cg1, "single-reduction PCG (Chronopoulos-Gear): one blocking reduction per iteration, all its sums in it",
                 "")
OVK__SOLVER(pipecg, "pipelined PCG (Ghysels-Vanroose): one reduction per iteration, in flight behind the "
                    "preconditioner and the matvec",
                    "")
OVK__SOLVER(rpipecg, "recycled pipelined PCG: pipecg deflated by a space kept across solves (option recycle=K), "
                     "built eigCG-style from earlier solves' coefficients; one reduction per iteration, in flight",
                     "")
OVK__SOLVER(rcg, "recycled PCG, not pipelined: deflated PCG with a space kept across solves (option recycle=K), "
                 "built eigCG-style as rpipecg's; two reductions per iteration, 2K vectors more than PCG",
                 "")
OVK__SOLVER(groppcg, "Gropp's PCG: two non-blocking reductions, one behind the preconditioner, one behind the matvec",
                     "")
OVK__SOLVER(pipeprcg, "pipelined predict-and-recompute PCG (Chen-Carson): one reduction behind two matvecs and "
                      "two preconditioner applications, classical attainable accuracy",
                      "")
OVK__SOLVER(plcg, "p(l)-CG (Cornelis-Cools-Vanroose): a deep pipeline, l reductions in flight behind l matvecs "
                  "and preconditioner applications; falls back to pipeprcg",
                  "l=1..8: pipeline depth (1); lmin, lmax: bounds of the spectrum of CA for the shifts "
                  "(default: lmin = 0, lmax = the largest Ritz value of a Krylov space of up to 13 dimensions, two reductions)")
OVK__SOLVER(scg, "s-step PCG (Chronopoulos-Gear, Newton basis): one reduction per s iterations, any SPD preconditioner",
                 "s=1..16: iterations per reduction, the block's basis vectors (4)")
OVK__SOLVER(gmres, "restarted GMRES, right-preconditioned, DCGS2 Gram-Schmidt: one reduction per step, any matrix",
                   OVK__GMRES_KEYS)
OVK__SOLVER(fgmres, "flexible GMRES: the preconditioner may change at every step (keeps the preconditioned vectors), any matrix",
                    OVK__GMRES_KEYS)
OVK__SOLVER(pgmres, "p(l)-GMRES (Ghysels et al.): one reduction per step behind l matvecs, falls back to gmres",
                    "l=1..8: pipeline depth (2); restart=1..500 (30); orth=cgs|dcgs2: the basis from the Gram "
                    "matrix alone (default), or each v_j's second classical pass in the reduction of step j + l - 1, "
                    "applied l steps later; orthloss=0|1: measure ||I - V^T V||_F of each cycle's basis (one reduction "
                    "more a cycle; the view prints the last); lmin, lmax: the interval of the shifts (default: the "
                    "real parts of the first cycle's Ritz values)")
OVK__SOLVER(sgmres, "s-step GMRES (CA-GMRES): s products per block, two block reductions per s steps, Newton basis",
                    "s=1..32: the block size, products between reductions (5); m=1..500: the restart (the smallest "
                    "multiple of s from 30); basis=newton|monomial: the block's basis, Newton with Leja-ordered Ritz "
                    "shifts from the first cycle's Ritz values, its first blocks monomial (default) or powers of A C; overlap=0|1: 1 starts each block from "
                    "the previous block's raw last vector (one Newton basis per cycle, m shifts) so that one reduction per "
                    "block, carrying the previous block's second pass, runs in flight behind the next block's products "
                    "(0)")
OVK__SOLVER(gcrodr, "GCRO-DR: restarted GMRES, right-preconditioned, recycling k harmonic Ritz vectors across its "
                    "cycles and solves (option recycle=K < restart), any matrix",
                    "restart=2..500: the Krylov space's dimension before a restart (30); update=N: only a solve's first "
                    "N cycles make the space again, later ones keep it (0: every cycle, the default); settle=0..1: "
                    "none after the first cycle that cut the true residual by that factor (0: never); the recycled "
                    "space's dimension is the solver option recycle (0: plain restarted GMRES, classical Gram-Schmidt)")
OVK__SOLVER(auto, "measures the reduction latency and the local work at setup and picks alg1, pipecg, "
                  "plcg:l=k or scg:s=4|8 (pipeprcg after a breakdown of plcg); on a nonsymmetric matrix gmres, "
                  "pgmres:l=k or sgmres:s=5|10[,overlap=1]",
                  "remeasure=0|1: measure again after new matrix values (0); warm=0|1: measure again, warm, in the "
                  "second solve of the same values (1); maxl=1..8: deepest plcg (4; pgmres: at most 3); "
                  "sstep=0|1: scg and sgmres are candidates (1; never below rtol 1e-10, nor scg with condest=1)")
OVK__SOLVER(bicgstab, "BiCGStab (van der Vorst), right-preconditioned: any matrix, two matvecs and three blocking "
                      "reductions per iteration",
                      "")
OVK__SOLVER(pipebicgstab, "pipelined BiCGStab (Cools-Vanroose): any matrix, two reductions behind C and a matvec each, "
                          "in flight together with early=1",
                          "early=0|1: start the next omega's sums before beta and alpha are known (1)")
OVK__SOLVER(idrs, "IDR(s) (biorthogonal, van Gijzen-Sonneveld), right-preconditioned: any matrix, one blocking "
                  "reduction per step, s + 1 steps a cycle",
                  "s=1..64: the shadow space's dimension (4); a step is one product and one reduction")
OVK__SOLVER(pipeidrs, "pipelined IDR(s): idrs's iterates, right-preconditioned, any matrix, one reduction per step in "
                      "flight behind the step's preconditioner application and matvec",
                      "s=1..64: the shadow space's dimension (4); a step is one product and one reduction")
OVK__SOLVER(minres, "MINRES (Paige-Saunders) for a symmetric, possibly indefinite matrix with an SPD preconditioner: "
                    "one blocking reduction per iteration",
                    "")
OVK__SOLVER(pminres, "pipelined MINRES: one reduction per iteration, in flight behind the preconditioner and the "
                     "matvec; symmetric, possibly indefinite matrix, SPD preconditioner",
                     "")
