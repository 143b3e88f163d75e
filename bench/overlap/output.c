/* ovk_overlap_bench: the CSV output (preamble, header, rows). */
#include "overlap.h"

/* text with commas (CSV separators) replaced by ';' */
void ovk_ob_csv_safe(const char *in, char *out, size_t len)
{
    snprintf(out, len, "%s", in);
    for (char *c = out; *c; c++)
        if (*c == ',') *c = ';';
}

/* ---- output ---------------------------------------------------------------- */

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

/* Open the output; the preamble goes in first when the file is new/empty. */
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

/* The effective model of a reducer as text, and its latency for `bytes`. */
void ovk_ob_model_text(const ovk_reducer *red, int size, double bytes, char *text, size_t len, double *us)
{
    ovk_latency_model m;
    *us = 0.0;
    if (!red || !ovk_reducer_get_latency(red, &m)) {
        snprintf(text, len, "none");
        return;
    }
    snprintf(text, len, "alpha=%g;beta=%g;gamma=%g;P=%d", m.alpha_us, m.beta_us, m.gamma_us, m.P);
    *us = ovk_latency_model_us(&m, size, bytes);
}

static void print_dgemm_fields(FILE *f, const plan *p, const row_stats *st)
{
    if (p->kind != COMPUTE_DGEMM) {
        fprintf(f, ",,,,");
        return;
    }
    double flops = 2.0 * pow(p->dgemm_n, 3) * (double)p->units;
    double busy = st->compute - st->test;
    fprintf(f, ",%d,%ld,", p->dgemm_n, p->units);
    if (st->alone > 0.0) fprintf(f, "%.4g", 1e-9 * flops / st->alone);
    fprintf(f, ",");
    if (busy > 0.0) fprintf(f, "%.4g", 1e-9 * flops / busy);
}

void ovk_ob_print_overlap_row(const context *cx, const char *spec, const bench_case *bc, long bytes, int tests,
                              enum poll_kind poll, const plan *p, const row_stats *st)
{
    char sp[TEXT_LEN], model[TEXT_LEN];
    double lat_us = 0.0;
    FILE *f = cx->out;
    ovk_ob_csv_safe(spec, sp, sizeof sp);
    ovk_ob_model_text(bc->red, cx->size, (double)bytes, model, sizeof model, &lat_us);
    fprintf(f, "%s,%ld,%d,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f,%s,%g,%g,%g,%d", sp, bytes, tests,
            ovk_ob_poll_names[poll], p->kind == COMPUTE_DUMMY ? "dummy" : "dgemm", 1e6 * st->base, 1e6 * st->init,
            1e6 * st->test, 1e6 * st->wait, 1e6 * st->compute, 1e6 * st->overall, ovk_ob_overlap_pct(st), model, lat_us,
            cx->o->noise_hz, cx->o->noise_us, cx->size);
    print_dgemm_fields(f, p, st);
    fprintf(f, ",%s,%d\n", ovk_ob_level_name(cx->provided), cx->o->repeat);
    fflush(f);
}

