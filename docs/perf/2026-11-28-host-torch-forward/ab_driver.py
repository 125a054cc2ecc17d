"""A/B of gala.torch's forward + backward: main's build (base) and the branch (new) as two
worker processes, rounds alternating between them (order flipped each round)."""
import sys, os, json, subprocess, statistics
backend = sys.argv[1]; rounds = int(sys.argv[3]); py = "/work/wt-fwd/.venv/bin/python"
for k in [int(b) for b in sys.argv[2].split(",")]:
    ws = {}
    for side in ("base", "new"):
        env = dict(os.environ, GALA_SIDE=side, OMP_NUM_THREADS="2")
        ws[side] = subprocess.Popen([py, "/tmp/fwdab/worker.py", str(k), backend], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True, env=env)
        assert ws[side].stdout.readline().strip() == "ready"
    res = {"base": [], "new": []}
    for r in range(rounds):
        for side in (("base", "new") if r % 2 == 0 else ("new", "base")):
            ws[side].stdin.write("round\n"); ws[side].stdin.flush()
            res[side].append(json.loads(ws[side].stdout.readline()))
    for w in ws.values():
        w.stdin.close(); w.wait()
    print(f"== batch {k}, backend {backend}, median of {rounds} alternating rounds (ms)")
    keys = [key for key in res["new"][0] if key != "hash"]
    print(f"  {'':20s} {'base':>10s} {'new':>10s}")
    for key in keys:
        b = statistics.median(d.get(key, 0) for d in res["base"]) * 1e3
        n = statistics.median(d.get(key, 0) for d in res["new"]) * 1e3
        print(f"  {key:20s} {b:10.1f} {n:10.1f}")
    for side in ("base", "new"):
        tot = statistics.median(d["fwd"] + d["bwd"] for d in res[side])
        print(f"  {side}: forward+backward {tot*1e3:.1f} ms = {k/tot:.0f} QPs/s; hashes {sorted(set(d['hash'] for d in res[side]))}")
    same = {d["hash"] for d in res["base"]} == {d["hash"] for d in res["new"]}
    print(f"  x and every gradient bit-identical base vs new: {same}", flush=True)
