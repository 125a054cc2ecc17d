"""Import gala from one side: GALA_SIDE=base (main's build under /tmp/fwd-base-site) or new
(the worktree's editable install)."""
import os, sys
def use(side=None):
    side = side or os.environ.get("GALA_SIDE", "new")
    if side == "base":
        sys.meta_path[:] = [f for f in sys.meta_path if "skbc" not in type(f).__module__ and "Scikit" not in type(f).__name__]
        sys.path[:] = [p for p in sys.path if p != "/work/wt-fwd/python"]
        sys.path.insert(0, "/tmp/fwd-base-site")
    import gala
    assert ("fwd-base-site" in gala.__file__) == (side == "base"), gala.__file__
    return gala
