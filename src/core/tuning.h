/*
 * Tuning values as typed data (the design of CLBlast's parameter databases): per kernel
 * family a struct of parameters, generated from the one list of keys (tuning_keys.h, where
 * each key has its one default), resolved for a context and a precision by applying the
 * device rows of tuning_table.h, the context's gala_tune_set() values and GALA_TUNE, and
 * cached on the context. A routine reads fields:
 *
 *     const gala_tuning *T = gala_tuned(ctx, dt);
 *     c->nb = T->potrf.nb;
 *
 * See tuning.c for how a value is chosen and when the cache is refreshed.
 */
#ifndef GALA_CORE_TUNING_H
#define GALA_CORE_TUNING_H

#include <stdbool.h>

/* struct gala_tune_<family>: one field per key, of the key's type */
#define GALA_TUNE_FAMILY(fam, prefix, doc) typedef struct gala_tune_##fam {
#define GALA_TUNE_KEY(fam, name, type, def, lo, hi, doc) type name;
#define GALA_TUNE_END(fam)                                                                 \
    }                                                                                      \
    gala_tune_##fam;
#include "tuning_expand.h"

/* gala_tuning: every family's struct, as member <family> */
#define GALA_TUNE_FAMILY(fam, prefix, doc) gala_tune_##fam fam;
typedef struct gala_tuning {
#include "tuning_expand.h"
} gala_tuning;

/* GALA_TK_<family>_<name>: the keys' indices; GALA_TF_<family>: the families' */
#define GALA_TUNE_KEY(fam, name, type, def, lo, hi, doc) GALA_TK_##fam##_##name,
enum gala_tune_key_id {
#include "tuning_expand.h"
    GALA_TUNE_KEYS
};

#define GALA_TUNE_FAMILY(fam, prefix, doc) GALA_TF_##fam,
enum gala_tune_family_id {
#include "tuning_expand.h"
    GALA_TUNE_FAMILIES
};

/* GALA_TUNE_DEFAULT(family, name): a key's declared default, for a reader that replaces an
 * unusable value by it (a constant expression) */
#define GALA_TUNE_KEY(fam, name, type, def, lo, hi, doc) GALA_TD_##fam##_##name = (def),
enum gala_tune_default_value {
#include "tuning_expand.h"
    GALA_TD_END_ = 0
};
#define GALA_TUNE_DEFAULT(fam, name) ((long)GALA_TD_##fam##_##name)

/* Resolved values of one context: slot 0 for reads without a precision (and GALA_INT),
 * 1 for GALA_FLOAT, 2 for GALA_DOUBLE. */
#define GALA_TUNE_SLOTS 3
typedef struct gala_tune_cache {
    char *env;                   /* the GALA_TUNE the slots were resolved under (NULL: unset) */
    unsigned char valid[GALA_TUNE_SLOTS];
    gala_tuning t[GALA_TUNE_SLOTS];          /* what the readers see */
    long v[GALA_TUNE_SLOTS][GALA_TUNE_KEYS]; /* the same as numbers (gala_tune_get) */
    /* gala_tune_set's values, per slot (a set for any precision fills all three) */
    long set_v[GALA_TUNE_SLOTS][GALA_TUNE_KEYS];
    unsigned char set[GALA_TUNE_SLOTS][GALA_TUNE_KEYS];
} gala_tune_cache;

#endif /* GALA_CORE_TUNING_H */
