#!/usr/bin/env python3
"""tools/check-abi.py [ROOT]: every kernel family's contract declared once, in cl/<family>_abi.h.

A family is a kernel source cl/<family>.cl (with the files under cl/ it includes). Its ABI
header cl/<family>_abi.h holds its layouts, flags and constants (names with the prefix
<FAMILY>_; cl/la_abi.h, prefix LA_, what several families share) and the argument list of
each kernel as an X-list <FAMILY>_ARGS_<name>(F, X). Fails (exit 1, one line per problem)
when
  - a family has no ABI header, or no entry in DRIVER below (where its launches are);
  - a name an ABI header #defines is #defined, or declared as an enum constant, anywhere
    else (cl/, src/, tools/, bench/, tests/);
  - a kernel source or host kernel file (cl/, src/device/host/) #defines the same number
    under the name's suffix, bare or with another prefix (DSZ or TR_DSZ for LA_DSZ 10);
  - a kernel (KERNEL or a macro #defined to KERNEL...) writes its parameters out instead of
    GALA_PARAMS(<list>), or takes a list of another family;
  - the host kernel table gala_host_<family>[] (src/device/host/k_<family>.c) has a
    signature string instead of GALA_HOST_SIG(<list>), a kernel the .cl lacks or the other
    way round, or gives a kernel another list than the .cl does;
  - code in src/ launches with GALA_LAUNCH instead of a typed launch made by GALA_LAUNCHER
    from the family's list, or a family's launchers are outside its DRIVER files;
  - an argument list is not used by all three (kernel, host kernel, launch), unless it is
    only a part of other lists; or names an argument F or X (the list's own parameters).
A CTest test (abi_once) runs it; tools/check-tuning.py does the same for tuning keys,
tools/check-settings.py for the QP settings.
"""
import glob
import os
import re
import sys

from gala_scan import line_of, sources, strip_comments

# family -> the files or directories of the code that launches its kernels
DRIVER = {
    "qp": ["src/qp"],
    "vec": ["src/blas", "src/core/probe.c"],
    "gemv": ["src/blas/gemv.c", "src/blas/blas_common.h"],
    "gemm_tc": ["src/core/blas3_tc.c"],
    "lagemm": ["src/la/la_common.c"],
    "potrf": ["src/la/potrf.c"],
    "potrs": ["src/la/potrs.c"],
    "potri": ["src/la/potri.c"],
    "trtri": ["src/la/trtri.c"],
    "ldlt": ["src/la/ldlt.c"],
    "sldlt": ["src/la/sparse_ldlt.c"],
}
SHARED = {"la"}  # ABI headers of no family of their own (cl/la_abi.h)


def number(v):
    v = v.strip()
    while v.startswith("(") and v.endswith(")"):
        v = v[1:-1].strip()
    try:
        return int(v, 0)
    except ValueError:
        return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    root = os.path.abspath(root)
    errs = []
    rel = lambda p: os.path.relpath(p, root)
    files = sources(root, ("cl",)) + sources(root, ("src", "tools", "bench", "tests"), (".c", ".h"))
    text = {p: strip_comments(open(p, encoding="utf-8").read()) for p in sorted(files)}
    cldir = os.path.join(root, "cl")
    hostdir = os.path.join(root, "src", "device", "host")

    # ---------------------------------------------------------------- the headers
    abis = {}  # family -> dict(path, prefix, names {name: value}, lists {name: body})
    for abi in sorted(glob.glob(os.path.join(cldir, "*_abi.h"))):
        fam = os.path.basename(abi)[:-len("_abi.h")]
        body = text[abi].replace("\\\n", " ")
        hooks = set(re.findall(r"#\s*ifndef\s+(\w+)", body))  # names its includer may define
        names = {}
        for m in re.finditer(r"^[ \t]*#\s*define\s+(\w+)(\([^)]*\))?[ \t]*(.*)$", body, re.M):
            if m.group(1) not in hooks and not m.group(1).startswith("GALA_"):
                names[m.group(1)] = None if m.group(2) else number(m.group(3))
        lists = {m.group(1): m.group(2) for m in
                 re.finditer(r"#\s*define\s+(\w+_ARGS_\w+)\(F,\s*X\)\s*(.*)", body)}
        prefix = fam.upper() + "_"
        for n in names:
            if not n.startswith(prefix):
                errs.append(f"{rel(abi)}: {n} lacks the family's prefix {prefix}")
        abis[fam] = {"path": abi, "prefix": prefix, "names": names, "lists": lists}

    def list_items(fam, name, seen=()):
        """(kind, type, name) of a list, the lists it is made of expanded."""
        out = []
        for m in re.finditer(r"(\w+)\(([^()]*)\)", abis[fam]["lists"][name]):
            if m.group(1) in ("F", "X"):
                out.append(tuple(a.strip() for a in m.group(2).split(",")))
            elif m.group(1) in abis[fam]["lists"] and m.group(1) not in seen:
                out += list_items(fam, m.group(1), seen + (name,))
        return out

    parts = set()  # lists that other lists are made of
    for fam, a in abis.items():
        for lst, body in a["lists"].items():
            parts |= {m for m in re.findall(r"(\w+_ARGS_\w+)\(F,\s*X\)", body) if m != lst}
            for k, t, n in list_items(fam, lst):
                if n in ("F", "X"):
                    errs.append(f"{rel(a['path'])}: {lst} names an argument {n}, the list's own "
                                f"parameter (the macro would replace it)")
                if k not in "BILR" or len(k) != 1:
                    errs.append(f"{rel(a['path'])}: {lst}: argument {n} of unknown kind {k}")

    # ---------------------------------------------------------------- declared once
    all_names = {n: (fam, v) for fam, a in abis.items() for n, v in a["names"].items()}
    by_value = {}  # suffix -> [(name, value)] of numeric names, for copies under another prefix
    for n, (fam, v) in all_names.items():
        if v is not None:
            by_value.setdefault(n[len(abis[fam]["prefix"]):], []).append((n, v))
    for p, t in text.items():
        if p.endswith("_abi.h") and os.path.dirname(p) == cldir:
            continue
        kernel_side = p.startswith(cldir + os.sep) or p.startswith(hostdir + os.sep)
        decls = [(m.start(), m.group(1), m.group(2)) for m in
                 re.finditer(r"^[ \t]*#\s*define\s+(\w+)(?:[ \t]+([^\n]*))?", t, re.M)]
        for em in re.finditer(r"\benum\b[^{;]*\{([^}]*)\}", t):
            value = -1
            for item in em.group(1).split(","):
                mm = re.match(r"\s*(\w+)\s*(?:=\s*(.+))?$", item.strip(), re.S)
                if not mm:
                    continue
                value = number(mm.group(2)) if mm.group(2) else (value + 1 if value is not None else None)
                decls.append((em.start(), mm.group(1), str(value) if value is not None else ""))
        for pos, d, val in decls:
            ln = line_of(t, pos)
            if d in all_names:
                errs.append(f"{rel(p)}:{ln}: {d} is declared in "
                            f"{rel(abis[all_names[d][0]]['path'])}")
                continue
            v = number(val) if val else None
            if not kernel_side or v is None:
                continue
            for suffix, named in by_value.items():
                if d == suffix or d.endswith("_" + suffix):
                    for n, nv in named:
                        if nv == v:
                            errs.append(f"{rel(p)}:{ln}: {d} {val.strip()} repeats {n} of "
                                        f"{rel(abis[all_names[n][0]]['path'])}")

    # ---------------------------------------------------------------- families
    def family_sources(path, seen):
        """the family's .cl and the cl/ files it includes (not the headers of ABIs)"""
        if path in seen or path not in text:
            return
        seen.append(path)
        for inc in re.findall(r'^[ \t]*#\s*include\s+"([^"]+)"', text[path], re.M):
            q = os.path.join(cldir, inc)
            if not q.endswith("_abi.h"):
                family_sources(q, seen)

    qualifiers = {"KERNEL", "KERNEL_MINB"}
    for p, t in text.items():
        if p.startswith(cldir + os.sep):
            for m in re.finditer(r"#\s*define\s+(\w+)\s+KERNEL(?:_MINB)?\b", t):
                qualifiers.add(m.group(1))
    qual = "|".join(sorted(qualifiers, key=len, reverse=True))
    kernel_rx = re.compile(r"(?<!\w)(?:" + qual + r")(?:\s*\([^)]*\))?\s+void\s+(\w+)\s*\(([^{;]*?)\)\s*\{")

    launchers = {}  # list -> [file]
    for p, t in text.items():
        for m in re.finditer(r"GALA_LAUNCHER\(\s*\w+\s*,\s*(\w+)\s*\)", t):
            launchers.setdefault(m.group(1), []).append(p)
        if p.startswith(os.path.join(root, "src") + os.sep) and re.search(r"\bGALA_LAUNCH\(", t) \
                and not p.endswith(os.path.join("core", "kernel.h")):
            errs.append(f"{rel(p)}: launches with GALA_LAUNCH (use the typed launch GALA_LAUNCHER "
                        f"makes from the family's argument list)")

    families = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(cldir, "*.cl")))
    for fam in families:
        cl = os.path.join(cldir, fam + ".cl")
        if fam not in abis:
            errs.append(f"{rel(cl)}: no ABI header cl/{fam}_abi.h")
            continue
        if fam not in DRIVER:
            errs.append(f"tools/check-abi.py: family {fam} has no DRIVER entry")
        a = abis[fam]
        srcs = []
        family_sources(cl, srcs)
        if a["path"] not in [os.path.join(cldir, inc) for s in srcs for inc in
                             re.findall(r'#\s*include\s+"([^"]+)"', text[s])]:
            errs.append(f"{rel(cl)}: does not #include \"{fam}_abi.h\"")
        # kernels
        cl_lists = {}
        for s in srcs:
            for m in kernel_rx.finditer(text[s]):
                pm = re.fullmatch(r"\s*GALA_PARAMS\((\w+)\)\s*", m.group(2))
                if not pm:
                    errs.append(f"{rel(s)}: kernel {m.group(1)} writes its parameters out "
                                f"(GALA_PARAMS)")
                elif pm.group(1) not in a["lists"]:
                    errs.append(f"{rel(s)}: kernel {m.group(1)} takes {pm.group(1)}, not a list "
                                f"of {rel(a['path'])}")
                else:
                    cl_lists[m.group(1)] = pm.group(1)
        # host kernels
        hk = os.path.join(hostdir, f"k_{fam}.c")
        ht = text.get(hk, "")
        tm = re.search(r"gala_host_kernel\s+gala_host_" + fam + r"\s*\[\s*\]\s*=\s*\{(.*?)\n\};", ht, re.S)
        host_lists = {}
        if not tm:
            errs.append(f"{rel(hk)}: no host kernel table gala_host_{fam}[]")
        else:
            for m in re.finditer(r'(?:\bK\(\s*(\w+)|\{\s*"(\w+)")\s*,\s*("?)(?:GALA_HOST_SIG\((\w+)\))?',
                                 tm.group(1)):
                name = m.group(1) or m.group(2)
                if m.group(3):
                    errs.append(f"{rel(hk)}: host kernel {name} has a signature string "
                                f"(GALA_HOST_SIG)")
                elif not m.group(4):
                    errs.append(f"{rel(hk)}: host kernel {name}: no GALA_HOST_SIG(<list>)")
                else:
                    host_lists[name] = m.group(4)
        for k in sorted(set(cl_lists) | set(host_lists)):
            if k not in host_lists and tm:
                errs.append(f"{rel(hk)}: kernel {k} of cl/{fam}.cl has no host version")
            elif k not in cl_lists and k in host_lists:
                errs.append(f"{rel(hk)}: host kernel {k} is no kernel of cl/{fam}.cl")
            elif cl_lists[k] != host_lists[k]:
                errs.append(f"{rel(hk)}: host kernel {k} takes {host_lists[k]}, the kernel "
                            f"{cl_lists[k]}")
        # launches
        where = [os.path.join(root, d) for d in DRIVER.get(fam, [])]
        for lst in sorted(a["lists"]):
            for p in launchers.get(lst, []):
                if not any(p == w or p.startswith(w + os.sep) for w in where):
                    errs.append(f"{rel(p)}: launches {lst} outside {fam}'s driver "
                                f"({', '.join(DRIVER.get(fam, []))})")
            if lst in parts and lst not in cl_lists.values() and lst not in launchers:
                continue
            for what, used in (("kernel of cl/" + fam + ".cl", set(cl_lists.values())),
                               ("host kernel", set(host_lists.values())),
                               ("launch (GALA_LAUNCHER)", set(launchers))):
                if lst not in used:
                    errs.append(f"{rel(a['path'])}: {lst} is used by no {what}")
    for fam in abis:
        if fam not in families and fam not in SHARED:
            errs.append(f"{rel(abis[fam]['path'])}: no family cl/{fam}.cl (or add it to SHARED)")
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
