#!/bin/sh
# gala-qp under MPI (docs/scale.md): `mpiexec -n R gala-qp solve ...` must report what one
# process reports for the same inputs, in the same order — names, sources, sizes, statuses,
# iterations and objectives (the objectives to 1e-9 where solved, 1e-6 otherwise: a rank's
# batch is not the whole batch, so its kernels' launch shapes may differ in the last bits),
# the same solution files and the
# same exit code — with 2 and 3 ranks (oversubscribed on a small machine), a rank without
# QPs, a rank whose QPs are all invalid, and a file that one rank cannot read (every rank
# stops, none hangs).
#
# usage: mpi_cli.sh GALA_QP MPIEXEC DATA_DIR BACKEND
set -eu
qp=$1 mpiexec=$2 data=$3 backend=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Open MPI without a network in a container: shared memory and the loopback only
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export GALA_HOST_THREADS=1 # the ranks share the machine's cores
fail=0

run() { # NAME RANKS ARGS... : exit code in $work/NAME.rc, CSV and solution files beside it
    name=$1 ranks=$2
    shift 2
    set +e
    if [ "$ranks" = 0 ]; then
        "$qp" solve --backend "$backend" --quiet --csv -o "$work/$name.csv" --solution-dir "$work/$name.sol" "$@" \
            >"$work/$name.out" 2>&1
    else
        timeout 600 "$mpiexec" -n "$ranks" "$qp" solve --backend "$backend" --quiet --csv \
            -o "$work/$name.csv" --solution-dir "$work/$name.sol" "$@" >"$work/$name.out" 2>&1
    fi
    echo $? >"$work/$name.rc"
    set -e
}

same() { # ONE MANY: the reports, exit codes and solution files agree
    rc1=$(cat "$work/$1.rc") rc2=$(cat "$work/$2.rc")
    if [ "$rc1" != "$rc2" ]; then
        echo "FAIL $2: exit code $rc2, one process $rc1"
        cat "$work/$2.out"
        fail=1
        return
    fi
    if ! python3 - "$work/$1.csv" "$work/$2.csv" <<'EOF'; then
import csv, math, sys
a = list(csv.DictReader(open(sys.argv[1])))
b = list(csv.DictReader(open(sys.argv[2])))
bad = [] if len(a) == len(b) else [f"{len(b)} rows, one process {len(a)}"]
for x, y in zip(a, b):
    for k in ("name", "source", "n", "m", "status", "status_code", "iterations", "reference"):
        if x[k] != y[k]:
            bad.append(f"{x['name']}: {k} {y[k]!r}, one process {x[k]!r}")
    for k in ("objective", "prim_res", "dual_res"):
        if (x[k] == "") != (y[k] == ""):
            bad.append(f"{x['name']}: {k} {y[k]!r}, one process {x[k]!r}")
        elif x[k] and k == "objective":
            # an unconverged iterate (maximum iterations) carries the rounding differences
            # of thousands of iterations
            tol = 1e-9 if x["status"] == "solved" else 1e-6
            if not math.isclose(float(x[k]), float(y[k]), rel_tol=tol, abs_tol=tol):
                bad.append(f"{x['name']}: objective {y[k]}, one process {x[k]}")
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
        echo "FAIL $2: the report differs from one process's"
        fail=1
        return
    fi
    if [ -d "$work/$1.sol" ] && [ "$(ls "$work/$1.sol")" != "$(ls "$work/$2.sol" 2>/dev/null)" ]; then
        echo "FAIL $2: solution files differ from one process's"
        fail=1
        return
    fi
    echo "ok   $2 ($(grep -c . "$work/$2.csv") lines, exit code $rc2)"
}

# 24 files and 7 generated QPs, on 1, 2 and 3 ranks
mm="$data/maros_meszaros"
run one 0 "$mm" --generate mpc:4x7 --eps 1e-5 --reference "$mm/00README.QP"
for r in 2 3; do
    run ranks$r $r "$mm" --generate mpc:4x7 --eps 1e-5 --reference "$mm/00README.QP"
    same one ranks$r
done

# fewer QPs than ranks: rank 2 has none
run small1 0 --generate mpc:3x2
run small3 3 --generate mpc:3x2
same small1 small3

# rank 1's share all invalid (l > u): HS21 HS35 | bad1 bad2 (sorted: upper case first)
mkdir -p "$work/inv"
cp "$mm/HS21.QPS" "$mm/HS35.QPS" "$work/inv/"
for b in bad1 bad2; do
    cat >"$work/inv/$b.qps" <<EOF
NAME          $b
ROWS
 N  obj
 L  c1
COLUMNS
    x1        obj       1.0        c1        1.0
    x2        obj       1.0        c1        1.0
RHS
    rhs       c1        1.0
BOUNDS
 LO BND       x1        2.0
 UP BND       x1        -1.0
QUADOBJ
    x1        x1        1.0
    x2        x2        1.0
ENDATA
EOF
done
run inv1 0 "$work/inv"
run inv2 2 "$work/inv"
same inv1 inv2
grep -q "invalid data" "$work/inv2.csv" || { echo "FAIL inv2: no invalid QP reported"; fail=1; }

# a file only the last rank reads cannot be parsed: every rank stops with the usage code
cp "$data/cli/bad_column.qps" "$work/inv/zz_bad.qps"
run parse2 2 "$work/inv"
if [ "$(cat "$work/parse2.rc")" != 2 ]; then
    echo "FAIL parse2: exit code $(cat "$work/parse2.rc"), expected 2"
    cat "$work/parse2.out"
    fail=1
else
    echo "ok   parse2 (exit code 2)"
fi
exit $fail
