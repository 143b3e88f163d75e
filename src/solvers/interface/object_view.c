/* ovk_solver_view: the solver object's configuration as text -- the
 * variant and its own view, the preconditioner, the backend and where it
 * comes from, tolerances, monitor and convergence test, the matrix (its
 * storage, symmetry, eliminated Dirichlet rows) or the operator, the null
 * space, and every option's value in effect.  Local; a setup with option
 * view calls it on rank 0.  It reads the object and changes nothing. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "object.h"

static void view_matrix(const ovk_solver *s, FILE *f)
{
    static const char *const halo[] = {"isend", "persistent", "neighbor"};
    static const char *const vform[] = {"double", "float (exact)", "8-bit dictionary"};
    const ovk_matrix *A = s->A;
    if (!A) {
        fprintf(f, "  operator: the application's callback (matrix-free), %d rows on this rank\n", s->lay->nlocal);
        return;
    }
    int h = (int)ovk_matrix_get_halo(A), v = A->diag.vform;
    fprintf(f, "  matrix: %lld rows, %lld entries on this rank (%d rows from %lld); diagonal block: %s, columns as %s, "
               "values %s%s; halo %s\n",
            (long long)s->lay->nglobal, (long long)ovk_matrix_nnz_local(A), s->lay->nlocal,
            (long long)s->lay->row_start, A->diag.upper ? "upper triangle" : "both triangles",
            A->diag.off16   ? "16-bit offsets"
            : A->diag.esc16 ? "16-bit offsets, far ones apart"
                            : "int",
            v >= 0 && v < 3 ? vform[v] : "?",
            A->diag.runs     ? ", runs of repeated rows"
            : A->diag.slices ? ", slices of 8 rows for the product"
                             : "",
            h >= 0 && h < 3 ? halo[h] : "?");
    if (s->made.sv && !ovk__has_cap(s->made.sv, OVK__CAP_NONSYMMETRIC))
        fprintf(f, "  symmetry: %s\n",
                s->coords.symmetric ? "declared (option assume_symmetric), not checked"
                             : "checked, each mirror pair equal up to 2^-40 sqrt(m_i m_j), m_i the largest |a_ik| of row i");
    if (s->seen.elim.E && s->c.A == s->seen.elim.E)
        fprintf(f, "  Dirichlet rows: %lld eliminated symmetrically (their columns dropped from the other rows, the "
                   "known values moved to the right-hand side)\n",
                s->seen.elim.count);
}

int ovk_solver_view(const ovk_solver *s, FILE *f)
{
    char buf[256];
    if (!ovk__solver_valid(s)) return ovk__solver_not_solver("ovk_solver_view");
    if (!f) return ovk__fail(OVK_EINVAL, "ovk_solver_view: NULL stream");
    const ovk_solve_options *o = &s->o;
    fprintf(f, "ovk_solver: %lld rows on %d ranks, %s\n", (long long)s->lay->nglobal, s->lay->size,
            s->made.ready && !s->marks.dirty ? "set up" : "options changed since the last setup (the next solve sets up)");
    fprintf(f, "  solver: %s%s%s\n", s->solver_spec, s->made.sv ? " - " : "", s->made.sv ? s->made.sv->description : "");
    if (s->made.var.sv && s->made.var.sv->ops->view) s->made.var.sv->ops->view(s->made.var.work, f);
    ovk__recycle_view(&s->c.recycle, f);
    if (s->fns.pc) fprintf(f, "  preconditioner: the application's callback\n");
    else if (s->made.pc.type && strncmp(s->precond_spec, s->made.pc.name, strlen(s->made.pc.name)))
        fprintf(f, "  preconditioner: %s (%s)\n", s->precond_spec, s->made.pc.name);
    else fprintf(f, "  preconditioner: %s\n", s->precond_spec);
    if (!s->fns.pc && s->made.pc.type && s->made.pc.type->view && s->made.pc.state && s->made.ready) s->made.pc.type->view(s->made.pc.state, f);
    char origin[64];
    ovk__solver_backend_origin(s, origin, sizeof origin);
    fprintf(f, "  backend: %s (from %s)\n", ovk__solver_backend(s), origin);
    fprintf(f, "  tolerances: rtol = %g, atol = %g, divtol = %g%s, max_it = %d\n", o->tol, o->atol, s->mon.divtol,
            s->mon.divtol > 0.0 ? "" : " (off)", o->max_iter);
    fprintf(f, "  initial guess: %s; convergence test: %s; monitor: %s%s%s%s%s%s\n",
            s->guess_zero ? "zero" : "x on entry", s->mon.conv_fn ? "the application's"
                                                    : ovk__solver_natural_norm(s) ? "sqrt(<r, C r>) < max(rtol sqrt(<b, C b>), atol)"
                                                                      : "||r|| < max(rtol ||b||, atol)",
            s->mon.fn ? "the application's" : "none", s->mon.print ? ", -ovk_" : "",
            s->mon.print ? ovk__solver_key_at(offsetof(ovk_solver, mon.print)) : "", s->mon.print_true ? ", -ovk_" : "",
            s->mon.print_true ? ovk__solver_key_at(offsetof(ovk_solver, mon.print_true)) : "",
            s->mon.print_true ? " (one product and one blocking reduction per iteration)" : "");
    view_matrix(s, f);
    if (s->ns.has_constant || s->ns.user_k || !strcmp(s->nullspace_spec, "constant"))
        fprintf(f, "  null space: %s%d vector(s) of the application; projected out of b, of every iteration's "
                   "direction (its coefficients in the variant's own reduction) and of x%s\n",
                s->ns.has_constant || !strcmp(s->nullspace_spec, "constant") ? "the constant and " : "",
                s->ns.user_k, s->ns.k ? "" : " (orthonormalised at the next setup)");
    if (s->ns.k && s->ns.inconsistency >= 0.0)
        fprintf(f, "  null space: the last solve's b had ||Z^T b||/||b|| = %.3e (removed)\n", s->ns.inconsistency);
    fprintf(f, "  options:");
    for (int i = 0; i < ovk__solver_option_count(); i++) {
        ovk__solver_option_value(s, i, buf, sizeof buf);
        fprintf(f, " %s=%s", ovk__solver_option_key(i), buf);
    }
    fprintf(f, "\n");
    return OVK_OK;
}
