#!/usr/bin/env python3
"""check_layout.py - the library's layout, checked: no include cycles.

The library's C (plugin/, shims/) is read as a graph of modules: a module is
a .c file and the .h of the same name (plugin/cpu/blas.c + blas.h); an edge
A -> B means a file of A includes B's header.  The graph must have no cycle,
and neither may the graph of folders it induces (plugin/cuda/device ->
plugin/core): a folder is a layer, and layers only look down.

With --objects DIR (the build's object files of the library) the script also
reads which module calls which (nm: a symbol A uses that B defines) and
requires every such use to be an include edge, so the include graph is the
real dependency graph and not an approximation of it: a header that declares
another module's functions fails here.

Prints the .c count of each folder, then the cycles, if any.  Exit 1 on a
cycle or an undeclared use.  --self-test plants each fault in a scratch tree
and checks that it is caught.

usage: check_layout.py [--objects DIR] [--self-test] [REPO]
"""
import os
import re
import subprocess
import sys
import tempfile

SOURCE_DIRS = ("plugin", "shims")
INCLUDE_ROOTS = ("plugin", ".", "abi")  # as CMake's include directories
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    return os.path.splitext(path)[0]


def scan(repo):
    """module -> set of modules it includes (paths relative to repo)."""
    graph = {}
    for top in SOURCE_DIRS:
        for dirpath, _, names in os.walk(os.path.join(repo, top)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), repo)
                deps = graph.setdefault(module_of(rel), set())
                with open(os.path.join(repo, rel), encoding="utf-8") as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    target = resolve(repo, rel, inc)
                    if target and module_of(target) != module_of(rel):
                        deps.add(module_of(target))
    return graph


def resolve(repo, rel, inc):
    for base in [os.path.dirname(rel)] + list(INCLUDE_ROOTS):
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(repo, cand)):
            return cand
    return None  # system or third-party header


def in_library(module):
    return module.split(os.sep)[0] in SOURCE_DIRS


def folder_graph(graph):
    folders = {}
    for mod, deps in graph.items():
        src = os.path.dirname(mod)
        folders.setdefault(src, set())
        for d in deps:
            if in_library(d) and os.path.dirname(d) != src:
                folders[src].add(os.path.dirname(d))
    return folders


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def cycle_path(graph, comp):
    """One closed walk through a component, for the message."""
    comp = set(comp)
    start = min(comp)
    path, seen, v = [start], {start}, start
    while True:
        nxt = sorted(w for w in graph[v] if w in comp)
        back = [w for w in nxt if w == start]
        fresh = [w for w in nxt if w not in seen]
        if back and len(path) > 1 or not fresh:
            path.append(start if back else nxt[0])
            return " -> ".join(path)
        v = fresh[0]
        seen.add(v)
        path.append(v)


def symbol_uses(objdir, repo):
    """module -> set of modules whose symbols it uses, from nm."""
    defined, undefined = {}, {}
    for dirpath, _, names in os.walk(objdir):
        for name in names:
            if not name.endswith(".o"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, objdir)
            src = rel[: -len(".o")]  # plugin/cpu/blas.c
            if not in_library(src) or not os.path.isfile(os.path.join(repo, src)):
                continue
            mod = module_of(src)
            out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    undefined.setdefault(mod, set()).add(parts[1])
                elif len(parts) == 3 and parts[1] in "TDRBCGS":
                    defined[parts[2]] = mod
    uses = {}
    for mod, syms in undefined.items():
        for s in syms:
            if s in defined and defined[s] != mod:
                uses.setdefault(mod, {}).setdefault(defined[s], s)
    return uses


def check(repo, objdir=None, quiet=False):
    graph = scan(repo)
    ok = True
    if not quiet:
        counts = {}
        for mod in graph:
            if os.path.isfile(os.path.join(repo, mod + ".c")):
                counts[os.path.dirname(mod)] = counts.get(os.path.dirname(mod), 0) + 1
        for folder in sorted(set(os.path.dirname(m) for m in graph)):
            print(f"{counts.get(folder, 0):3d} .c  {folder}/")
    for comp in cycles(graph):
        print("CYCLE (modules): " + cycle_path(graph, comp))
        ok = False
    folders = folder_graph(graph)
    for comp in cycles(folders):
        print("CYCLE (folders): " + cycle_path(folders, comp))
        ok = False
    if objdir:
        for mod, targets in sorted(symbol_uses(objdir, repo).items()):
            for target, sym in sorted(targets.items()):
                if target not in graph.get(mod, ()):
                    print(f"UNDECLARED USE: {mod} uses {sym} of {target} without including "
                          f"{target}.h")
                    ok = False
    if not quiet:
        edges = sum(len(d) for d in graph.values())
        print(f"layout: {len(graph)} modules, {edges} include edges, {len(folders)} folders: "
              + ("no cycles" if ok else "FAILED"))
    return ok


def self_test():
    """Each fault, planted in a scratch tree, must be caught."""
    def tree(files):
        d = tempfile.mkdtemp(prefix="layout-")
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
            with open(os.path.join(d, path), "w") as f:
                f.write(text)
        return d

    cases = [
        ("a clean tree passes", True,
         {"plugin/core/a.h": "", "plugin/core/a.c": '#include "a.h"\n',
          "plugin/top/b.c": '#include "core/a.h"\n'}),
        ("a module cycle fails", False,
         {"plugin/x/a.h": "", "plugin/x/a.c": '#include "b.h"\n',
          "plugin/x/b.h": "", "plugin/x/b.c": '#include "a.h"\n'}),
        ("a folder cycle fails", False,
         {"plugin/x/a.c": '#include "y/b.h"\n', "plugin/y/b.h": "",
          "plugin/y/c.c": '#include "x/d.h"\n', "plugin/x/d.h": ""}),
    ]
    ok = True
    for what, want, files in cases:
        got = check(tree(files), quiet=True)
        print(("ok: " if got == want else "FAIL: ") + what)
        ok &= got == want
    return ok


def main(argv):
    args, objdir = argv[1:], None
    if "--self-test" in args:
        return 0 if self_test() else 1
    if "--objects" in args:
        i = args.index("--objects")
        objdir = args[i + 1]
        del args[i:i + 2]
    repo = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..")
    return 0 if check(os.path.abspath(repo), objdir) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
