#!/usr/bin/env python3
"""tools/cl-same.py [--ir] [--jobs N] CL_A CL_B PROGRAMS: whether two kernel source trees give
the compilers the same kernels.

For every program of PROGRAMS (the list tests/offline_programs writes: family, build options,
...), the family's source of each tree (common.clh, then cl/<family>.cl with the cl/ files
it includes, as gala_kernel_source assembles it) is preprocessed with those options by
clang-15 -E, as OpenCL C and as the CUDA side sees it (__CUDACC_RTC__), and the token
streams are compared: equal streams are the same kernels, whatever the files, macros and
comments they were written with. Two spellings of the same integer arithmetic count as one
("SAME (normalized)"): a parenthesized single number or name, (64) for 64 (a layout macro's
hygiene), an index's trailing + 0, a[i + 0] (a field at offset 0), and an index that starts
by adding two numbers, a[3 + 1] for a[4] (the high word of a field), a[2 + 1 + i]. A program whose
streams still differ is reported with the first difference; with --ir both sides are also compiled (-O2, spir64) and their LLVM IR compared,
for differences that only spell the same arithmetic another way (a redundant parenthesis,
an added + 0). Exit 0 when every program is the same (tokens, or IR with --ir).

For refactors of cl/ (issue 38: the ABI headers, one file per kernel form): run it on the
trees before and after, e.g. with `git worktree` or `git archive REV | tar -x -C DIR`.
Needs clang-15 (Debian: clang-15), CLANG to override.
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

CLANG = os.environ.get("CLANG", "clang-15")
TOKEN = re.compile(r'''\s*(?:(#[^\n]*)|([A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*)|("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')|(\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|\S))''')


def tokens(text):
    out, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        tok = next((g for g in m.groups() if g is not None), None)
        if tok is not None:
            out.append(re.sub(r"\s+", " ", tok.strip()) if tok.startswith("#") else tok)
    return out


def normal(toks):
    """tokens with two spellings of the same integer arithmetic made one: a parenthesized
    single number or name, (64) or (N), an index's trailing + 0, a[i + 0], and an index that
    starts by adding two numbers, a[3 + 1], a[2 + 1 + i]"""
    out = []
    for t in toks:
        out.append(t)
        while len(out) >= 3 and out[-1] == ")" and out[-3] == "(" and \
                re.fullmatch(r"\w+", out[-2]) and not (len(out) >= 4 and re.fullmatch(r"\w+", out[-4])):
            out[-3:] = [out[-2]]
        if len(out) >= 3 and out[-1] == "]" and out[-2] == "0" and out[-3] == "+":
            out[-3:] = ["]"]
        if len(out) >= 5 and out[-5] == "[" and out[-3] == "+" and out[-1] in ("]", "+") and \
                out[-2].isdigit() and out[-4].isdigit():
            out[-4:-1] = [str(int(out[-4]) + int(out[-2]))]
    return out


def source(cl, family, work, tag):
    path = os.path.join(work, f"{tag}-{family}.cl")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write('#line 1 "common.clh"\n' + open(os.path.join(cl, "common.clh")).read() +
                    f'\n#line 1 "{family}.cl"\n' + open(os.path.join(cl, family + ".cl")).read() + "\n")
    return path


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + r.stderr[-2000:])
    return r.stdout


def preprocess(cl, src, opts, cuda):
    lang = ["-x", "c++", "-D__CUDACC_RTC__"] if cuda else ["-x", "cl", "-cl-std=CL1.2"]
    return tokens(run([CLANG, "-E", "-P"] + lang + ["-I", cl] + opts.split() + [src]))


def ir(cl, src, opts):
    text = run([CLANG, "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header",
                "-target", "spir64", "-O2", "-emit-llvm", "-S", "-o", "-", "-I", cl] +
               opts.split() + [src])
    keep = [l for l in text.split("\n") if not l.startswith(("; ModuleID", "source_filename"))]
    return "\n".join(keep)


def compare(args):
    cla, clb, fam, opts, work, want_ir = args
    sa, sb = source(cla, fam, work, "a"), source(clb, fam, work, "b")
    try:
        exact = True
        for cuda in (False, True):
            ta, tb = preprocess(cla, sa, opts, cuda), preprocess(clb, sb, opts, cuda)
            if ta != tb:
                exact = False
                ta, tb = normal(ta), normal(tb)
            if ta != tb:
                i = next((k for k in range(min(len(ta), len(tb))) if ta[k] != tb[k]),
                         min(len(ta), len(tb)))
                what = (f"tokens differ ({'CUDA' if cuda else 'OpenCL'}) at {i}: "
                        f"{' '.join(ta[max(0, i - 6):i + 6])!r} / {' '.join(tb[max(0, i - 6):i + 6])!r}")
                if want_ir:
                    same = ir(cla, sa, opts) == ir(clb, sb, opts)
                    return ("IR-SAME " if same else "DIFFER ") + what, same
                return "DIFFER " + what, False
        return ("SAME" if exact else "SAME (normalized)"), True
    except RuntimeError as e:
        return "ERROR " + str(e), False


def main():
    argv = sys.argv[1:]
    want_ir = "--ir" in argv
    jobs = os.cpu_count() or 2
    if "--jobs" in argv:
        jobs = int(argv[argv.index("--jobs") + 1])
        del argv[argv.index("--jobs"):argv.index("--jobs") + 2]
    argv = [a for a in argv if a != "--ir"]
    if len(argv) != 3:
        print(__doc__)
        return 2
    cla, clb, plist = (os.path.abspath(a) for a in argv)
    progs = []
    for line in open(plist):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 2 and (f[0], f[1]) not in progs:
            progs.append((f[0], f[1]))
    bad = norm = 0
    with tempfile.TemporaryDirectory() as work:
        # the sources once per family and side, before the threads
        for fam in sorted({p[0] for p in progs}):
            source(cla, fam, work, "a")
            source(clb, fam, work, "b")
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            for (fam, opts), (msg, ok) in zip(progs, ex.map(
                    compare, [(cla, clb, f, o, work, want_ir) for f, o in progs])):
                if not ok or msg != "SAME":
                    print(f"{fam} {opts}: {msg}")
                bad += not ok
                norm += msg == "SAME (normalized)"
    print(f"cl-same: {len(progs)} programs, {len(progs) - bad} the same ({norm} of them after "
          f"normalization), {bad} not")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
