#!/usr/bin/env python3
"""Check the relative links of README.md, CHANGELOG.md, docs/*.md and the READMEs of the
result folders (docs/**/README.md): every target file exists and every #anchor names a
heading of its page (GitHub's anchor rules). The reports under docs/perf are generated
output, kept as they came back (their plots/ links name files that were not committed).

    python3 tools/check-links.py [ROOT]      exit 0 when every link resolves, 1 otherwise
"""
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")


def anchors(path, cache={}):
    """GitHub's heading anchors of a markdown file: lower case, punctuation dropped, spaces
    to hyphens, duplicates numbered; plus explicit {#id} and <a name|id="...">."""
    if path in cache:
        return cache[path]
    out, seen, fenced = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line.strip()):
                fenced = not fenced
                continue
            if fenced:
                continue
            for m in re.finditer(r'<a\s+(?:name|id)="([^"]+)"', line):
                out.add(m.group(1))
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            text = m.group(2)
            explicit = re.search(r"\{#([\w-]+)\}\s*$", text)
            if explicit:
                out.add(explicit.group(1))
                text = text[:explicit.start()]
            text = re.sub(r"`|\*\*|__", "", text)
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
            slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    cache[path] = out
    return out


def files(root):
    for name in ("README.md", "CHANGELOG.md"):
        p = os.path.join(root, name)
        if os.path.exists(p):
            yield p
    docs = os.path.join(root, "docs")
    for d, _, fs in os.walk(docs):
        for f in sorted(fs):
            if f.endswith(".md") and (d == docs or f == "README.md"):
                yield os.path.join(d, f)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    bad = 0
    for path in files(root):
        fenced = False
        with open(path, encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                if FENCE.match(line.strip()):
                    fenced = not fenced
                    continue
                if fenced:
                    continue
                line = re.sub(r"`[^`]*`", "", line)
                for m in LINK.finditer(line):
                    url = m.group(1)
                    if re.match(r"^[a-z][a-z0-9+.-]*:", url) or url.startswith("//"):
                        continue  # http:, mailto: ...: not checked here
                    target, _, frag = url.partition("#")
                    tpath = os.path.normpath(os.path.join(os.path.dirname(path), target)) \
                        if target else path
                    where = f"{os.path.relpath(path, root)}:{no}: {url}"
                    if not os.path.exists(tpath):
                        print(f"{where}: no such file")
                        bad += 1
                    elif frag and tpath.endswith(".md") and frag not in anchors(tpath):
                        print(f"{where}: no heading #{frag} in {os.path.relpath(tpath, root)}")
                        bad += 1
    if bad:
        print(f"{bad} broken link(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
