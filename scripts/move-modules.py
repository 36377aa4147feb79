#!/usr/bin/env python3
"""Moves TypeScript / AssemblyScript modules and rewrites every relative import of them.

Usage: scripts/move-modules.py OLD=NEW [OLD=NEW ...]   (paths relative to the repository root)

Run again after merging a branch written against the old paths: an import that still names a
moved module (the old file is gone) is rewritten too. Used for #22's layer moves (src/engine/,
assembly/study/); kept for the next one.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ['src', 'workers', 'test', 'bench', 'assembly', 'scripts', 'console']
SPEC = re.compile(r"""((?:from|import)\s*\(?\s*['"])(\.{1,2}/[^'"]+)(['"])""")


def resolve(importer, spec):
    base = os.path.normpath(os.path.join(os.path.dirname(importer), spec))
    if base.endswith('.js'):
        return base[:-3] + '.ts'
    return base + '.ts'


def relative(importer, target, had_js):
    rel = os.path.relpath(target, os.path.dirname(importer))
    if not rel.startswith('.'):
        rel = './' + rel
    rel = rel[:-3]
    return rel + ('.js' if had_js else '')


def main():
    moves = {}
    for arg in sys.argv[1:]:
        old, new = arg.split('=')
        moves[os.path.join(ROOT, old)] = os.path.join(ROOT, new)
    moved_now = set()
    for old, new in moves.items():
        if os.path.exists(old):
            moved_now.add(new)
            os.makedirs(os.path.dirname(new), exist_ok=True)
            subprocess.run(['git', 'mv', old, new], cwd=ROOT, check=True)
    back = {new: old for old, new in moves.items() if new in moved_now}
    changed = 0
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if not f.endswith('.ts'):
                    continue
                path = os.path.join(dirpath, f)
                src = open(path, encoding='utf8').read()
                # a moved file's own imports are relative to where it was
                was = back.get(path, path)

                def fix(m):
                    spec = m.group(2)
                    target = resolve(was, spec)
                    if not os.path.exists(target) and not os.path.exists(moves.get(target, '')):
                        # maybe written against the new location already
                        target2 = resolve(path, spec)
                        if os.path.exists(target2):
                            return m.group(0)
                    target = moves.get(target, target)
                    if not os.path.exists(target):
                        return m.group(0)
                    return m.group(1) + relative(path, target, spec.endswith('.js')) + m.group(3)

                out = SPEC.sub(fix, src)
                if out != src:
                    open(path, 'w', encoding='utf8').write(out)
                    changed += 1
    print(f'{len(moves)} moves, {changed} files rewritten')


if __name__ == '__main__':
    main()
