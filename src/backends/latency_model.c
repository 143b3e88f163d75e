/* The network-latency model: parsing, presets and the modelled latency.
 * The latency backend (latency.c) applies it to the backend it wraps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef struct preset {
    const char *name;
    ovk_latency_model m;
    const char *source;
} preset;

/* Parameters read off the seed papers' clusters. */
static const preset presets[] = {
    /* 250 us at P = 256: beta * ceil(log2 256) = 31.25 * 8 */
    {"pcg-overlap-256", {0.0, 31.25, 0.0, 256},
     "~250 us MPI_Iallreduce at 256 ranks (PCG-Overlap paper, Sec. VII-A)"},
    /* 38.64 us for 8 bytes at P = 512 (9 levels); 21.4 ms for 1 MB */
    {"cheetah-512", {0.0, 4.29, 0.0204, 512},
     "Cheetah non-blocking Allreduce at 512 ranks: 38.6 us (8 B), 21.4 ms (1 MB)"},
    /* InfiniBand QDR: 1-1.5 us per message, 32 Gbit/s = 4 bytes/ns */
    {"ib-qdr", {0.0, 1.5, 0.00025, 0},
     "InfiniBand QDR link: 1.5 us per tree level, 4 GB/s (ConnectX-2 papers)"},
};
enum { PRESET_COUNT = (int)(sizeof presets / sizeof presets[0]) };

void ovk_latency_preset_print(FILE *f)
{
    for (int i = 0; i < PRESET_COUNT; i++) {
        const ovk_latency_model *m = &presets[i].m;
        fprintf(f, "  %-16s alpha=%g,beta=%g,gamma=%g,P=%d  (%s)\n", presets[i].name, m->alpha_us,
                m->beta_us, m->gamma_us, m->P, presets[i].source);
    }
}

static const preset *find_preset(const char *name, size_t len)
{
    for (int i = 0; i < PRESET_COUNT; i++)
        if (strlen(presets[i].name) == len && strncmp(presets[i].name, name, len) == 0) return &presets[i];
    return NULL;
}

static int parse_value(const char *key, const char *val, size_t len, double *out)
{
    char buf[64], *end = NULL;
    if (len == 0 || len >= sizeof buf) return ovk__fail(OVK_EOPTION, "latency model: %s has no value", key);
    memcpy(buf, val, len);
    buf[len] = '\0';
    double v = strtod(buf, &end);
    if (*end != '\0' || !isfinite(v) || v < 0.0)
        return ovk__fail(OVK_EOPTION, "latency model: %s=%s must be a finite number >= 0", key, buf);
    *out = v;
    return OVK_OK;
}

/* One "key=value" or preset item of the text. */
static int parse_item(const char *p, size_t len, int first, ovk_latency_model *m)
{
    const char *eq = memchr(p, '=', len);
    double v = 0.0;
    if (!eq) {
        const preset *pr = first ? find_preset(p, len) : NULL;
        if (pr) {
            *m = pr->m;
            return OVK_OK;
        }
        if (first && len == 4 && strncmp(p, "none", 4) == 0) return OVK_OK;
        return ovk__fail(OVK_EOPTION,
                         "latency model: '%.*s' is neither key=value (alpha, beta, gamma, P) nor a preset "
                         "(none, pcg-overlap-256, cheetah-512, ib-qdr) in first place",
                         (int)len, p);
    }
    size_t klen = (size_t)(eq - p);
    char key[16];
    if (klen == 0 || klen >= sizeof key) return ovk__fail(OVK_EOPTION, "latency model: bad item '%.*s'", (int)len, p);
    memcpy(key, p, klen);
    key[klen] = '\0';
    int rc = parse_value(key, eq + 1, len - klen - 1, &v);
    if (rc) return rc;
    if (!strcmp(key, "alpha")) m->alpha_us = v;
    else if (!strcmp(key, "beta")) m->beta_us = v;
    else if (!strcmp(key, "gamma")) m->gamma_us = v;
    else if (!strcmp(key, "P") && v == floor(v) && v <= 1e9) m->P = (int)v;
    else if (!strcmp(key, "P")) return ovk__fail(OVK_EOPTION, "latency model: P=%g must be a whole number", v);
    else return ovk__fail(OVK_EOPTION, "latency model: unknown key '%s' (alpha, beta, gamma, P)", key);
    return OVK_OK;
}

int ovk__latency_check(const ovk_latency_model *m, int comm_size)
{
    if (!(m->alpha_us >= 0.0) || !(m->beta_us >= 0.0) || !(m->gamma_us >= 0.0) || m->P < 0 ||
        !isfinite(m->alpha_us + m->beta_us + m->gamma_us))
        return ovk__fail(OVK_EOPTION, "latency model: parameters must be finite and >= 0");
    double L = ovk_latency_model_us(m, comm_size, OVK__LATENCY_CHECK_BYTES); /* m->P when set */
    int P = m->P > 0 ? m->P : comm_size;                                      /* for the detail */
    if (!(L <= OVK__LATENCY_MAX_US))
        return ovk__fail(OVK_EOPTION,
                         "latency model: a reduction of %g bytes on %d ranks would take %g us; the limit is %g us "
                         "(1 s) per reduction",
                         OVK__LATENCY_CHECK_BYTES, P, L, OVK__LATENCY_MAX_US);
    return OVK_OK;
}

int ovk_latency_model_parse(const char *text, ovk_latency_model *m)
{
    if (!text || !m) return ovk__fail(OVK_EINVAL, "ovk_latency_model_parse: NULL argument");
    ovk_latency_model out = {0.0, 0.0, 0.0, 0};
    const char *p = text;
    for (int first = 1; *p; first = 0) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int rc = parse_item(p, len, first, &out);
        if (rc) return rc;
        p = comma ? comma + 1 : p + len;
    }
    int rc = ovk__latency_check(&out, 2); /* the real size is checked when the model is set */
    if (rc) return rc;
    *m = out;
    return OVK_OK;
}

double ovk_latency_model_us(const ovk_latency_model *m, int comm_size, double bytes)
{
    int P = m->P > 0 ? m->P : comm_size;
    int levels = 0;
    while (P > 1 && (1LL << levels) < P) levels++; /* ceil(log2 P) */
    return m->alpha_us + m->beta_us * levels + m->gamma_us * bytes;
}

int ovk__latency_is_zero(const ovk_latency_model *m)
{
    return m->alpha_us == 0.0 && m->beta_us == 0.0 && m->gamma_us == 0.0;
}
