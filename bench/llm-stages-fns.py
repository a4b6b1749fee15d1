#!/usr/bin/env python3
"""Self instructions per function of each stage of two callgrind runs of bench/llm-stages.ts (dumps with compressed
names: the names are resolved across all the parts of a run, in order). Usage:
  python3 bench/llm-stages-fns.py PREFIX_A N_A PREFIX_B N_B [TOP]
Prints, per stage, the functions whose self cost per item (B - A) / (N_B - N_A) is largest; JIT code is '???'."""
import os, re, sys, collections

STAGES = ["setup", "read+parse", "convert+validate", "surfaces", "index row+hash", "render", "request body",
          "(replies, untimed)", "reply parse", "quote verification", "verdict build", "store append"]

def parts(prefix):
    d, base = os.path.split(prefix)
    nums = sorted(int(f[len(base) + 1:]) for f in os.listdir(d or ".") if f.startswith(base + ".") and f[len(base) + 1:].isdigit())
    return [os.path.join(d, f"{base}.{k}") for k in nums]

NAME = re.compile(r"^(c?(?:ob|fl|fi|fe|fn))=\((\d+)\)(?: (.*))?$")

def run_costs(prefix):
    names = {}
    files = parts(prefix)
    out = []
    for f in files:
        self_cost = collections.Counter()
        fn = ob = None
        skip_next = False
        with open(f, errors="replace") as fh:
            for line in fh:
                line = line.rstrip("\n")
                m = NAME.match(line)
                if m:
                    kind, ident, name = m.groups()
                    key = (kind.lstrip("c")[:2], ident)
                    if name is not None:
                        names[key] = name
                    if kind == "fn":
                        fn = names.get(("fn", ident), "?")
                    elif kind == "ob":
                        ob = names.get(("ob", ident), "?")
                    continue
                if line.startswith("calls="):
                    skip_next = True
                    continue
                if line and (line[0].isdigit() or line[0] in "+-*"):
                    if skip_next:
                        skip_next = False
                        continue
                    p = line.split()
                    if len(p) >= 2 and fn is not None:
                        self_cost[f"{fn} [{os.path.basename(ob or '?')}]"] += int(p[1])
        out.append(self_cost)
    return out[-len(STAGES):] if len(out) >= len(STAGES) else out

def main():
    pa, na, pb, nb = sys.argv[1:5]
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 12
    a, b = run_costs(pa), run_costs(pb)
    dn = int(nb) - int(na)
    for i, st in enumerate(STAGES):
        if st == "setup" or st.startswith("("):
            continue
        diff = collections.Counter()
        for k, v in b[i].items():
            diff[k] += v
        for k, v in a[i].items():
            diff[k] -= v
        total = sum(diff.values())
        print(f"== {st}: {total / dn / 1000:.1f} K instr/item")
        for k, v in diff.most_common(top):
            print(f"  {v / dn / 1000:8.1f} K  {100 * v / total:5.1f}%  {k[:150]}")

main()
