/* ovk_overlap_bench: the CSV output (preamble, header, rows). */
#include "output.h"

#define US 1e6 /* the CSV's times are in microseconds */
#define GIGA 1e-9

static const char *const overlap_columns =
    "backend,bytes,test_calls,poll,compute,base_us,init_us,test_us,wait_us,compute_us,overall_us,"
    "overlap_pct,latency_model,latency_us,noise_hz,noise_us,nranks,dgemm_n,dgemm_calls,"
    "dgemm_gflops_alone,dgemm_gflops_overlap,thread_level,repeats";
static const char *const latency_columns =
    "backend,bytes,count,nranks,repeats,median_us,min_us,p90_us,latency_model,latency_us,noise_hz,noise_us,"
    "thread_level";

static void print_preamble(FILE *f, enum bench_mode mode)
{
    if (mode == MODE_LATENCY) {
        fprintf(f, "# ovk_overlap_bench -mode latency: start + wait of `bytes` bytes of doubles (sum);\n"
                   "# median/min/p90 over `repeats` on each rank, then the maximum over the ranks\n");
        fprintf(f, "%s\n", latency_columns);
        return;
    }
    fprintf(f,
            "# ovk_overlap_bench (OSU overlap method).  Times in us: median over `repeats` on each rank,\n"
            "# then the maximum over the ranks.  base = start+wait without compute (t_pure);\n"
            "# init = start; compute = the compute phase incl. `test_calls` poll calls (t_compute);\n"
            "# test = time inside the poll calls (t_test); wait = wait; overall = start..end of wait.\n"
            "# overlap_pct = max(0, 100*(1 - (overall - (compute - test)) / base))\n"
            "# poll: test = ovk_reduce_test, hook = ovk_reducer_progress (the kernel hook), none: 0 calls.\n"
            "# dgemm_gflops_*: 2 N^3 dgemm_calls / time, alone vs. (compute - test) while overlapped.\n");
    fprintf(f, "%s\n", overlap_columns);
}

FILE *ovk_ob_open_output(const options *o)
{
    if (!o->csv) {
        print_preamble(stdout, o->mode);
        return stdout;
    }
    FILE *f = fopen(o->csv, "a");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && ftell(f) == 0) print_preamble(f, o->mode);
    return f;
}

/* What a row says of its backend: the spec with its commas (CSV
 * separators) as ';', the effective latency model and its latency for the
 * message. */
typedef struct row_head {
    char spec[TEXT_LEN], model[TEXT_LEN];
    double latency_us;
} row_head;

static void make_head(const csv_out *out, const bench_case *bc, row_head *h)
{
    ovk_latency_model m;
    snprintf(h->spec, sizeof h->spec, "%s", bc->spec);
    for (char *c = h->spec; *c; c++)
        if (*c == ',') *c = ';';
    h->latency_us = 0.0;
    if (!bc->red || !ovk_reducer_get_latency(bc->red, &m)) {
        snprintf(h->model, sizeof h->model, "none");
        return;
    }
    snprintf(h->model, sizeof h->model, "alpha=%g;beta=%g;gamma=%g;P=%d", m.alpha_us, m.beta_us, m.gamma_us, m.P);
    h->latency_us = ovk_latency_model_us(&m, out->nranks, (double)bc->bytes);
}

/* OSU's overlap: the share of the base latency the CPU did not spend on
 * the reduction (init + test + wait), at least 0. */
static double overlap_pct(const row_stats *st)
{
    double cpu_comm = st->overall - (st->compute - st->test);
    double pct = 100.0 * (1.0 - cpu_comm / st->base);
    return pct > 0.0 ? pct : 0.0;
}

static void print_dgemm_fields(FILE *f, const plan *p, const row_stats *st)
{
    if (p->kind != COMPUTE_DGEMM) {
        fprintf(f, ",,,,");
        return;
    }
    double flops = ovk_ob_plan_flops(p);
    double busy = st->compute - st->test;
    fprintf(f, ",%d,%ld,", p->dgemm_n, p->units);
    if (st->alone > 0.0) fprintf(f, "%.4g", GIGA * flops / st->alone);
    fprintf(f, ",");
    if (busy > 0.0) fprintf(f, "%.4g", GIGA * flops / busy);
}

void ovk_ob_print_overlap_row(const csv_out *out, const bench_case *bc, int tests, enum poll_kind poll,
                              const plan *p, const row_stats *st)
{
    row_head h;
    make_head(out, bc, &h);
    fprintf(out->f, "%s,%ld,%d,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f,%s,%g,%g,%g,%d", h.spec, bc->bytes, tests,
            ovk_ob_poll_names[poll], p->kind == COMPUTE_DUMMY ? "dummy" : "dgemm", US * st->base, US * st->init,
            US * st->test, US * st->wait, US * st->compute, US * st->overall, overlap_pct(st), h.model,
            h.latency_us, out->o->noise_hz, out->o->noise_us, out->nranks);
    print_dgemm_fields(out->f, p, st);
    fprintf(out->f, ",%s,%d\n", ovk_ob_level_name(out->provided), out->o->repeat);
    fflush(out->f);
}

void ovk_ob_print_latency_row(const csv_out *out, const bench_case *bc, const double q[3])
{
    row_head h;
    make_head(out, bc, &h);
    fprintf(out->f, "%s,%ld,%d,%d,%d,%.3f,%.3f,%.3f,%s,%g,%g,%g,%s\n", h.spec, bc->bytes, bc->count, out->nranks,
            out->o->repeat, US * q[0], US * q[1], US * q[2], h.model, h.latency_us, out->o->noise_hz,
            out->o->noise_us, ovk_ob_level_name(out->provided));
    fflush(out->f);
}
