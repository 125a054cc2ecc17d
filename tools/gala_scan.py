"""tools/gala_scan.py: how the checkers of tools/ (check-abi.py, check-settings.py,
check-tuning.py) read the tree, written once: comments blanked, a C macro's arguments split,
the source files under some folders, the line of an offset, and a generated part of a doc
(between two marker lines) compared with what it should be, or rewritten.

Imported by the checkers (each puts tools/ on its path by being run from it); not a tool of
its own.
"""
import os
import re


def strip_comments(s):
    """s with its C comments blanked out, its newlines kept (offsets and lines stay valid)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), s, flags=re.S)


def line_of(text, pos):
    """The line number (from 1) of offset pos of text."""
    return text.count("\n", 0, pos) + 1


def c_args(s):
    """A macro's arguments split at top-level commas (string literals kept whole)."""
    out, depth, cur, i = [], 0, "", 0
    while i < len(s):
        ch = s[i]
        if ch == '"':
            j = i + 1
            while s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            cur += s[i:j + 1]
            i = j + 1
            continue
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    out.append(cur.strip())
    return out


def sources(root, tops, exts=None):
    """The files below root/<top> for each of tops whose names end with one of exts (every
    file when exts is None), hidden ones (.name, or in a .folder) left out: their paths
    (root joined with the rest), sorted."""
    found = set()
    for top in tops:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            found.update(os.path.join(d, f) for f in files
                         if not f.startswith(".") and (exts is None or f.endswith(tuple(exts))))
    return sorted(found)


def generated(path, begin, end, body, write):
    """The generated part of the doc at path: the lines between the marker lines begin and
    end, which should be body (its lines, each ending in a newline). 'same'; 'missing' (no
    such markers, or no file); 'differs'; or, with write, 'written' (the part replaced)."""
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    m = re.search(re.escape(begin) + r"\n(.*?)" + re.escape(end), text, re.S)
    if not m:
        return "missing"
    if m.group(1) == body:
        return "same"
    if not write:
        return "differs"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:m.start(1)] + body + text[m.end(1):])
    return "written"
