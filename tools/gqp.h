/*
 * gala-qp internals shared by its source files (tools/gala-qp.c: commands and options;
 * tools/gqp_io.c: inputs, reference values, solution files, reports). Not installed.
 */
#ifndef GALA_TOOLS_GQP_H
#define GALA_TOOLS_GQP_H

#include <stdio.h>

#include "gala/gala.h"

/* Exit codes (docs/gala-qp.md). */
enum { GQP_EXIT_OK = 0, GQP_EXIT_UNSOLVED = 1, GQP_EXIT_USAGE = 2, GQP_EXIT_FAILURE = 3 };

/* Status of a QP the tool did not hand to the solver (too large for the dense strategy). */
#define GQP_STATUS_SKIPPED 100

/* One QP of the batch: where it came from, the problem, and its result. */
typedef struct gqp_item {
    char name[96];        /* display name, unique within the batch (file stem or generator name) */
    char *source;         /* file path, or "generated: FAMILY size N seed S" */
    gala_qp_problem pb;   /* gala's minimization form */
    int sense;            /* +1: minimize; -1: the file said OBJSENSE MAX (objective reported as max) */
    int rows, bound_rows; /* split of A's rows (reader); bound_rows = 0 for generated QPs */
    int has_ref;          /* 1 if a reference optimum was found for it */
    double ref;           /* reference optimum, in the file's sense */
    int batch_index;      /* index in the solver's batch, -1 if skipped */
    char skip_reason[128];
    gala_qp_info info;    /* result (info.status = GQP_STATUS_SKIPPED when skipped) */
    const double *x, *y;  /* solution, owned by the solver (NULL when skipped) */
    const double *prim_cert, *dual_cert; /* infeasibility certificates (NaN when not infeasible) */
    int remote;           /* under MPI: another rank reads and solves it (rank 0 gets its result) */
} gqp_item;

/* The most devices of one run (--devices). */
#define GQP_MAX_DEVICES 16

/* What the report needs besides the items. */
typedef struct gqp_run {
    gqp_item *items;
    int count;
    gala_qp_settings settings;
    char device[512];      /* "backend: platform / device" */
    char backend[16];
    int linsys;            /* strategy used (gala_qp_linsys), -1 if nothing was solved */
    int chunks;            /* chunks the batch was solved in (gala_qp_chunk_count), 0: none */
    int ndev;              /* --devices: the devices the batch was divided among, 0: one */
    char dev_name[GQP_MAX_DEVICES][128];
    int dev_qps[GQP_MAX_DEVICES]; /* QPs of each device's share */
    double read_time;      /* reading files and generating, seconds */
    double setup_time;     /* gala_qp_setup */
    double solve_time;     /* gala_qp_solve (with polishing) */
    int interrupted;       /* SIGINT during the solve */
    double ref_tol;        /* relative objective tolerance of the reference check */
    int with_ref;          /* a reference file was given */
    int ranks;             /* MPI ranks that solved the batch (1: one process) */
    double *gathered;      /* under MPI, rank 0: every solved QP's vectors (owned) */
} gqp_run;

/* ---- gqp_io.c ---- */

/** Monotonic wall clock, seconds. */
double gqp_now(void);

/** Objective in the file's sense, or NAN when the status carries no objective. */
double gqp_objective(const gqp_item *it);

/** |f − ref| / max(1, |ref|): relative, absolute below 1. NAN without both. */
double gqp_ref_error(const gqp_item *it);

/** 1 when the status is GALA_QP_SOLVED. */
int gqp_is_solved(const gqp_item *it);

/** Short status name for tables and files ("solved", "max iter", "skipped", ...). */
const char *gqp_status_name(int status);

/** Files of a directory whose names end in .qps or .mps (any case), sorted, as "DIR/NAME".
 *  Returns the count (0 = none) or -1 with a message in err. *out is malloc'd. */
int gqp_list_dir(const char *dir, char ***out, char *err, size_t errcap);

/** Read "NAME ... VALUE" lines (00README.QP and similar: the first field is a problem name,
 *  the last a number; other lines are ignored) and attach the values to the items whose
 *  name or QPS NAME matches (ignoring case and
 *  characters other than letters and digits: cvxqp1s matches CVXQP1_S). Returns the number of items matched or -1
 *  with a message in err (file cannot be read). */
int gqp_read_reference(const char *path, gqp_item *items, int count, char *err, size_t errcap);

/** Write DIR/NAME.sol for every item (docs/gala-qp.md: solution files). 0, or -1 with err. */
int gqp_write_solutions(const char *dir, const gqp_run *run, char *err, size_t errcap);

/** Read x (n values) and y (m values) from a solution file written by gqp_write_solutions.
 *  Returns 1 if read, 0 if the file does not exist, -1 with err on a malformed file or a
 *  size mismatch. x and y must hold n and m doubles. */
int gqp_read_solution(const char *path, int n, int m, double *x, double *y, char *err,
                      size_t errcap);

/** Reports. */
void gqp_report_table(FILE *f, const gqp_run *run, int with_rows);
void gqp_report_summary(FILE *f, const gqp_run *run);
void gqp_report_json(FILE *f, const gqp_run *run);
void gqp_report_csv(FILE *f, const gqp_run *run);

/* ---- gqp_mpi.c: gala-qp under mpirun (docs/scale.md); one rank without MPI ---- */

typedef struct gqp_mpi {
    int active;                 /* MPI initialized (started by an MPI launcher) */
    int rank, size;             /* in MPI_COMM_WORLD */
    int local_rank, local_size; /* on this node: local_rank picks the device */
} gqp_mpi;

void gqp_mpi_init(int *argc, char ***argv, gqp_mpi *m);
void gqp_mpi_finalize(const gqp_mpi *m);
/** This rank's inputs k0 .. k1 − 1 of total (contiguous, rank order). */
void gqp_mpi_share(const gqp_mpi *m, int total, int *k0, int *k1);
/** The largest of the ranks' values (collective); rank 0's value to every rank. */
int gqp_mpi_agree(const gqp_mpi *m, int rc);
int gqp_mpi_bcast_rc(const gqp_mpi *m, int rc);
double gqp_mpi_max(const gqp_mpi *m, double v);
long long gqp_mpi_sum(const gqp_mpi *m, long long v);
/** Rank 0 receives every input's record and the solved QPs' vectors into run->items (k0 ..
 *  k1 − 1: this rank's share; sv, batch: its solver (NULL if none) and the problems it was set
 *  up with). Collective. 0, or −1 with a message in err. */
int gqp_mpi_gather(const gqp_mpi *m, gqp_run *run, int k0, int k1, const gala_qp_solver *sv,
                   const gala_qp_problem *batch, char *err, size_t errcap);

#endif
