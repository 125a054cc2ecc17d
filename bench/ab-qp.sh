#!/usr/bin/env bash
# Before/after of a change to the QP solver in one call: builds bench_qp from git revision
# BEFORE (git archive) and from the working tree, then runs both on the same device in
# alternating rounds (the batch of 10000 control QPs and double integrators, float and
# double), and prints the medians side by side.
#
#   source .device/setup.sh; [BATCH=10000] bash bench/ab-qp.sh BEFORE [ROUNDS] [BACKEND]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
before=$1 rounds=${2:-3} backend=${3:-cuda} batch=${BATCH:-10000}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT" /tmp/ab-before
git archive "$before" | tar -x -C /tmp/ab-before || exit 1
build() { # SRC DIR
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DGALA_BUILD_TESTS=OFF -DGALA_BUILD_TOOLS=OFF \
        >"$2.cmake.log" 2>&1 && cmake --build "$2" -j"$(nproc)" --target bench_qp >"$2.build.log" 2>&1 ||
        { tail -20 "$2.build.log"; exit 1; }
}
build /tmp/ab-before /tmp/ab-b & build "$PWD" /tmp/ab-a & wait
plat=(); [ "$backend" = opencl ] && plat=(--platform nvidia)
for r in $(seq 1 "$rounds"); do
    for side in b a; do
        GALA_CACHE_DIR=/tmp/ab-kc-$side /tmp/ab-$side/bench/bench_qp --backend "$backend" "${plat[@]}" \
            --family control,di --batches "$batch" --dtypes float,double --reps 3 \
            --json "$OUT/ab_${side}_$r.json" >"$OUT/ab_${side}_$r.txt" 2>&1 || echo "round $r $side failed"
    done
done
python3 - "$OUT" "$rounds" "$batch" <<'PYEOF'
import json, statistics, sys
out, rounds, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = {}
for side in "ba":
    for r in range(1, rounds + 1):
        try:
            j = json.load(open(f"{out}/ab_{side}_{r}.json"))
        except (OSError, ValueError):
            continue
        for x in j["results"]:
            if x.get("bench") == "qp" and x.get("batch") == batch:
                d = rows.setdefault((x["family"], x["dtype"]), {}).setdefault(side, {"q": [], "it": []})
                d["q"].append(x["qps_per_s"])
                d["it"].append(x["mean_iter"])
print(f"{'case':16} {'before QPs/s':>13} {'after QPs/s':>12} {'after/before':>13} {'iter b/a':>14}")
for k, v in sorted(rows.items()):
    med = lambda s, f: statistics.median(v[s][f]) if s in v else float("nan")
    print(f"{k[0]+' '+k[1]:16} {med('b','q'):13.0f} {med('a','q'):12.0f} {med('a','q')/med('b','q'):13.3f} "
          f"{med('b','it'):6.1f}/{med('a','it'):<6.1f}")
PYEOF
