#!/usr/bin/env python3
"""tools/check-abi.py [ROOT]: every kernel family's contract declared once, in cl/<family>_abi.h.

For each family with an ABI header (cl/<family>_abi.h: layouts, flags, constants, and the
argument list of each kernel as an X-list <FAM>_ARGS_<name>(F, X)), fails (exit 1, one line
per problem) when
  - a name the header #defines is #defined anywhere else (cl/, src/), or cl/<family>.cl
    #defines it again without its prefix (M_N for QP_M_N);
  - a kernel of cl/<family>.cl writes its parameters out instead of GALA_PARAMS(<list>);
  - a host kernel of src/device/host/k_<family>.c has a signature string instead of
    GALA_HOST_SIG(<list>);
  - the family's driver (src/<family>/ or the DRIVER below) launches with GALA_LAUNCH
    instead of the generated typed launch (GALA_LAUNCHER);
  - an argument list is not used by all three (kernel, host kernel, launch).
A CTest test (abi_once) runs it; tools/check-tuning.py does the same for tuning keys.
"""
import glob
import os
import re
import sys

DRIVER = {"qp": "src/qp"}  # family -> the directory of the code that launches its kernels


def strip_comments(s):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), s, flags=re.S)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    errs = []
    rel = lambda p: os.path.relpath(p, root)
    sources = sorted(glob.glob(os.path.join(root, "cl", "*")) +
                     glob.glob(os.path.join(root, "src", "**", "*.[ch]"), recursive=True))
    text = {p: strip_comments(open(p, encoding="utf-8").read()) for p in sources}
    for abi in sorted(glob.glob(os.path.join(root, "cl", "*_abi.h"))):
        fam = os.path.basename(abi)[:-len("_abi.h")]
        prefix = fam.upper() + "_"
        body = text[abi]
        defs = re.findall(r"^\s*#\s*define\s+(\w+)", body, re.M)
        # names under #ifndef in the header are hooks its includer may define first
        hooks = set(re.findall(r"#\s*ifndef\s+(\w+)", body))
        names = [d for d in defs if d not in hooks]
        lists = [d for d in names if d.startswith(prefix + "ARGS_")]
        for p, t in text.items():
            if p == abi:
                continue
            for ln, line in enumerate(t.split("\n"), 1):
                m = re.match(r"\s*#\s*define\s+(\w+)", line)
                if not m:
                    continue
                d = m.group(1)
                if d in names:
                    errs.append(f"{rel(p)}:{ln}: {d} is declared in {rel(abi)}")
                if p.endswith(f"/{fam}.cl") and prefix + d in names:
                    errs.append(f"{rel(p)}:{ln}: {d} repeats {prefix + d} of {rel(abi)}")
        # kernels: parameters from the lists
        cl = os.path.join(root, "cl", fam + ".cl")
        used_cl = set()
        for m in re.finditer(r"\bKERNEL(?:_MINB\([^)]*\))?\s+void\s+(\w+)\s*\(([^{]*?)\)\s*\{", text.get(cl, "")):
            pm = re.fullmatch(r"\s*GALA_PARAMS\((\w+)\)\s*", m.group(2))
            if not pm:
                errs.append(f"{rel(cl)}: kernel {m.group(1)} writes its parameters out (GALA_PARAMS)")
            else:
                used_cl.add(pm.group(1))
        for m in re.finditer(r"\w+_KERNEL\s+void\s+(\w+)\s*\(\s*GALA_PARAMS\((\w+)\)", text.get(cl, "")):
            used_cl.add(m.group(2))
        # host kernels: signatures from the lists
        hk = os.path.join(root, "src", "device", "host", f"k_{fam}.c")
        used_host = set(re.findall(r"GALA_HOST_SIG\((\w+)\)", text.get(hk, "")))
        for m in re.finditer(r"\bK\((\w+),\s*\"", text.get(hk, "")):
            errs.append(f"{rel(hk)}: host kernel {m.group(1)} has a signature string (GALA_HOST_SIG)")
        # the driver: typed launches only
        used_launch = set()
        for p, t in text.items():
            if "GALA_LAUNCHER" in t:
                used_launch |= set(re.findall(r"GALA_LAUNCHER\(\s*\w+\s*,\s*(\w+)\s*\)", t))
            d = DRIVER.get(fam)
            if d and rel(p).startswith(d + "/") and re.search(r"\bGALA_LAUNCH\(", t):
                errs.append(f"{rel(p)}: launches {fam} kernels with GALA_LAUNCH (use the "
                            f"typed launch of {rel(abi)}'s lists)")
        for lst in lists:
            for what, used in (("kernel of " + fam + ".cl", used_cl),
                               ("host kernel", used_host), ("launch (GALA_LAUNCHER)", used_launch)):
                if lst not in used:
                    errs.append(f"{rel(abi)}: {lst} is used by no {what}")
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
