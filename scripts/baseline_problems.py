#!/usr/bin/env python3
"""Turns a cuDNN baseline JSON (shared/baselines/cudnn_*.json) into gconv problem-set files,
one per direction and spatial rank, plus a table of the baseline latencies for the reports.

usage: scripts/baseline_problems.py BASELINE.json OUTDIR
"""
import json
import os
import sys

DIRS = {"fwd": "forward", "bwd_data": "bwd_data", "bwd_weight": "bwd_weight"}


def problem(row):
    d = row["dims"]
    sp, fl, s, p = row["sp"], row["fl"], row["s"], row["p"]
    out = {"layer": "baseline." + row["name"], "N": row["N"], "C": row["C"], "K": row["K"], "G": row["G"]}
    if d == 3:
        out.update(Di=sp[0], Hi=sp[1], Wi=sp[2], Z=fl[0], Y=fl[1], X=fl[2],
                   stride_d=s, stride_h=s, stride_w=s, pad_d=p, pad_h=p, pad_w=p)
    else:
        out.update(Hi=sp[0], Wi=sp[1], Y=fl[0], X=fl[1], stride_h=s, stride_w=s, pad_h=p, pad_w=p)
    return out


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    rows = json.load(open(src))
    os.makedirs(outdir, exist_ok=True)
    sets, table = {}, []
    for r in rows:
        direction = DIRS[r["dir"]]
        key = "baseline_%s_%dd" % (direction, r["dims"])
        sets.setdefault(key, {"key": key, "direction": direction,
                              "description": "cuDNN baseline shapes (%s)" % os.path.basename(src),
                              "generator": "scripts/baseline_problems.py", "problems": []})
        sets[key]["problems"].append(problem(r))
        table.append({"set": key, "layer": "baseline." + r["name"], "direction": direction,
                      "cudnn_ms": r["ms"], "cudnn_tflops": r["tflops"], "cudnn_gbps": r["gbps"]})
    for key, doc in sets.items():
        with open(os.path.join(outdir, key + ".json"), "w") as f:
            f.write("{\n")
            for k in ("key", "direction", "description", "generator"):
                f.write('  %s: %s,\n' % (json.dumps(k), json.dumps(doc[k])))
            f.write('  "problems": [\n')
            f.write(",\n".join("    " + json.dumps(p) for p in doc["problems"]))
            f.write("\n  ]\n}\n")
    with open(os.path.join(outdir, "cudnn_latencies.json"), "w") as f:
        json.dump({"source": os.path.basename(src), "rows": table}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
