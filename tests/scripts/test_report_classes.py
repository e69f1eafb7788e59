#!/usr/bin/env python3
"""bench/report.py --classes on generated runs: random shapes of every class with random kernel
and cuDNN latencies, written as a gconv-bench CSV (+ .meta.json), the report's figures checked
against figures this test computes on its own from the same data."""
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("GCONV_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
REPORT = os.path.join(SOURCE, "bench", "report.py")
COLUMNS = ["kernel", "problem_idx", "N", "C", "K", "G", "Di", "Hi", "Wi", "Z", "Y", "X",
           "stride_d", "stride_h", "stride_w", "pad_d", "pad_h", "pad_w", "dilation_d",
           "dilation_h", "dilation_w", "latency_ms", "tflops", "status", "gbps", "baseline_ms",
           "speedup", "variant", "dtype", "ndim", "problem_key", "layer"]


def random_shape(rng, kind, ndim, cpg=None):
    g = {"depthwise": rng.choice([32, 96, 144, 384]), "dense": 1}.get(kind, rng.choice([2, 4, 8, 32]))
    cpg = {"depthwise": 1, "small": rng.randint(2, 32), "large": rng.randint(33, 256),
           "dense": rng.randint(16, 512)}[kind] if cpg is None else cpg
    kpg = 1 if kind == "depthwise" else rng.randint(1, 8) * 8
    s = {"N": rng.randint(1, 64), "C": cpg * g, "K": kpg * g, "G": g,
         "Di": rng.randint(2, 16) if ndim == 3 else 1, "Hi": rng.randint(7, 56),
         "Wi": rng.randint(7, 56), "Z": 3 if ndim == 3 else 1, "Y": rng.choice([1, 3, 5]),
         "X": rng.choice([1, 3, 5]), "stride_d": 1, "stride_h": rng.choice([1, 2]),
         "stride_w": rng.choice([1, 2]), "pad_d": 1 if ndim == 3 else 0,
         "pad_h": 1, "pad_w": 1, "dilation_d": 1, "dilation_h": 1, "dilation_w": 1}
    return s


def flops_and_bytes(s):
    out = [(i + 2 * p - f) // st + 1 for i, p, f, st in (
        (s["Di"], s["pad_d"], s["Z"], s["stride_d"]), (s["Hi"], s["pad_h"], s["Y"], s["stride_h"]),
        (s["Wi"], s["pad_w"], s["X"], s["stride_w"]))]
    pixels = out[0] * out[1] * out[2]
    filt = s["Z"] * s["Y"] * s["X"]
    cpg = s["C"] // s["G"]
    flops = 2.0 * s["N"] * s["K"] * pixels * cpg * filt
    elements = s["N"] * s["Di"] * s["Hi"] * s["Wi"] * s["C"] + s["K"] * filt * cpg + \
        s["N"] * pixels * s["K"]
    return flops, 2.0 * elements


def key_of(s, ndim):
    return "%dd:%s" % (ndim, ",".join("%s%d" % (k, v) for k, v in sorted(s.items())))


def write_run(path, shapes, meta=None, with_baseline=True):
    """shapes: list of dicts (direction, class, ndim, shape, layer, kernels [(status, ms)], cudnn)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for i, sh in enumerate(shapes):
            for k, (status, ms) in enumerate(sh["kernels"]):
                row = dict(sh["shape"], kernel="grouped_conv_k%d" % k, problem_idx=i,
                           latency_ms=ms, status=status, variant=sh["direction"], dtype="bf16",
                           ndim=sh["ndim"], problem_key=key_of(sh["shape"], sh["ndim"]),
                           layer=sh["layer"], tflops="", gbps="", speedup="",
                           baseline_ms=sh["cudnn"] if with_baseline and status == "ok" else "")
                w.writerow(row)
    if meta is not None:
        with open(path + ".meta.json", "w") as f:
            json.dump(meta, f)


def run_report(*args):
    p = subprocess.run([sys.executable, REPORT, "--classes", *args], capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


CLASS_NAMES = {"depthwise": "depthwise", "small": "grouped C/G<=32", "large": "grouped C/G>32",
               "dense": "dense"}


class ReportClasses(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        seed = int(os.environ.get("GCONV_TEST_SEED", int.from_bytes(os.urandom(4), "little")))
        print("GCONV_TEST_SEED=%d" % seed)
        self.rng = random.Random(seed)

    def tearDown(self):
        self.dir.cleanup()

    def random_run(self):
        shapes = []
        for direction in ("forward", "bwd_weight"):
            for kind in CLASS_NAMES:
                for ndim in (2, 3):
                    for n in range(self.rng.randint(1, 4)):
                        kernels = [("ok", self.rng.uniform(0.01, 2.0))
                                   for _ in range(self.rng.randint(1, 4))]
                        # A failed or unsupported kernel, however fast, is never the best.
                        kernels.append((self.rng.choice(["fail", "unsupported"]), 1e-4))
                        self.rng.shuffle(kernels)
                        shapes.append({"direction": direction, "class": CLASS_NAMES[kind],
                                       "ndim": ndim,
                                       # The first of each class sits on the C/G = 32 border.
                                       "shape": random_shape(self.rng, kind, ndim, {
                                           "small": 32, "large": 33}.get(kind) if n == 0 else None),
                                       "layer": "layer_%s_%s_%d_%d" % (direction, kind, ndim, n),
                                       "kernels": kernels,
                                       "cudnn": self.rng.uniform(0.01, 2.0)})
        return shapes

    def expected(self, shapes, copy, matmul):
        groups = {}
        for sh in shapes:
            best = min(ms for status, ms in sh["kernels"] if status == "ok")
            flops, nbytes = flops_and_bytes(sh["shape"])
            memory = flops / nbytes < 150
            share = nbytes / (best * 1e6) / copy if memory else flops / (best * 1e9) / matmul
            floor = max(nbytes / (copy * 1e6), flops / (matmul * 1e9))
            groups.setdefault((sh["direction"], sh["class"], sh["ndim"]), []).append(
                (sh["cudnn"] / best, sh["layer"], share, sh["cudnn"] / floor))
        return groups

    def report_json(self, *args):
        code, out, err = run_report("--json", *args)
        self.assertIn(code, (0, 1), err + out)
        return json.loads(out)

    def test_figures_per_class_follow_the_data(self):
        shapes = self.random_run()
        copy, matmul = self.rng.uniform(2000, 5000), self.rng.uniform(300, 900)
        path = os.path.join(self.dir.name, "run.csv")
        meta = {"ceilings": {"copy_gbps": copy, "matmul_bf16_tflops": matmul, "how": "test"}}
        write_run(path, shapes, meta)
        # The flags are ignored while the run's own ceilings are there.
        report = self.report_json("--copy-gbps", "1", "--matmul-tflops", "1", path)
        self.assertAlmostEqual(report["ceilings"]["copy_gbps"], copy)
        self.assertAlmostEqual(report["ceilings"]["matmul_tflops"], matmul)
        groups = self.expected(shapes, copy, matmul)
        got = {(c["direction"], c["class"], c["ndim"]): c for c in report["classes"]}
        self.assertEqual(set(got), set(groups))
        for key, items in groups.items():
            c = got[key]
            speedups = [s for s, _, _, _ in items]
            self.assertEqual(c["shapes"], len(items), key)
            g = math.exp(sum(map(math.log, speedups)) / len(speedups))
            self.assertAlmostEqual(c["geomean"] / g, 1.0, places=9, msg=key)
            worst = min(items)
            self.assertAlmostEqual(c["worst_speedup"], worst[0], places=12, msg=key)
            self.assertEqual(c["worst_shape"], worst[1], key)
            self.assertAlmostEqual(c["won_share"], sum(s > 1 for s in speedups) / len(speedups))
            self.assertAlmostEqual(c["ceiling_min"] / min(s for _, _, s, _ in items), 1.0, places=9)
            self.assertEqual(c["ceiling_reached"], sum(s >= 0.7 for _, _, s, _ in items))
            least_g, least_s = (2.0, 0.9) if key[1] in ("depthwise", "grouped C/G<=32") else (1.0, 0.8)
            self.assertEqual(c["speed_pass"], g >= least_g and worst[0] >= least_s, key)
            self.assertEqual(c["ceiling_pass"], min(s for _, _, s, _ in items) >= 0.7, key)
            # The most a pool could show: cuDNN's time over the larger of the two floors.
            at = [a for _, _, _, a in items]
            self.assertAlmostEqual(c["geomean_at_ceiling"] /
                                   math.exp(sum(map(math.log, at)) / len(at)), 1.0, places=9)

    def test_several_runs_take_each_shapes_best_kernel_and_fastest_cudnn(self):
        shapes = self.random_run()
        other = [dict(sh, kernels=[("ok", ms * self.rng.uniform(0.5, 1.5)) for _, ms in
                                   sh["kernels"]], cudnn=sh["cudnn"] * self.rng.uniform(0.5, 1.5))
                 for sh in shapes]
        first, second = (os.path.join(self.dir.name, n) for n in ("a.csv", "b.csv"))
        meta = {"ceilings": {"copy_gbps": 3000.0, "matmul_bf16_tflops": 700.0}}
        write_run(first, shapes, meta)
        write_run(second, other, meta)
        by_layer = {l["layer"]: l for l in self.report_json(first, second)["shapes"]}
        for a, b in zip(shapes, other):
            best = min([ms for status, ms in a["kernels"] if status == "ok"] +
                       [ms for status, ms in b["kernels"] if status == "ok"])
            self.assertAlmostEqual(by_layer[a["layer"]]["speedup"],
                                   min(a["cudnn"], b["cudnn"]) / best, places=9)
        # The order of the files does not matter.
        again = {l["layer"]: l for l in self.report_json(second, first)["shapes"]}
        for layer, line in by_layer.items():
            self.assertAlmostEqual(again[layer]["speedup"], line["speedup"], places=12)

    def test_best_table_takes_cudnn_from_any_file_of_the_run(self):
        # cuDNN timed beside the first pool only; the second pool's kernels are faster.
        shapes = self.random_run()
        faster = [dict(sh, kernels=[("ok", min(ms for st, ms in sh["kernels"] if st == "ok") *
                                     self.rng.uniform(0.3, 0.9))]) for sh in shapes]
        first, second = (os.path.join(self.dir.name, n) for n in ("a.csv", "b.csv"))
        write_run(first, shapes)
        write_run(second, faster, with_baseline=False)
        p = subprocess.run([sys.executable, REPORT, "--best", first, second],
                           capture_output=True, text=True)
        self.assertIn(p.returncode, (0, 1), p.stderr)  # 1: the runs hold failed cells
        cells = ([c.strip() for c in line.strip().strip("|").split("|")]
                 for line in p.stdout.splitlines() if line.startswith("| layer_"))
        rows = {c[0]: c for c in cells}
        for sh, fast in zip(shapes, faster):
            c = rows[sh["layer"]]
            self.assertAlmostEqual(float(c[3]), fast["kernels"][0][1], places=4)
            self.assertAlmostEqual(float(c[6]), sh["cudnn"], places=4)
            self.assertEqual(c[8], "%.2fx" % (sh["cudnn"] / fast["kernels"][0][1]))

    def test_the_launch_floor_adds_to_every_shapes_least_time(self):
        shapes = self.random_run()
        copy, matmul = self.rng.uniform(2000, 5000), self.rng.uniform(300, 900)
        floor = self.rng.uniform(0.002, 0.008)
        path = os.path.join(self.dir.name, "run.csv")
        write_run(path, shapes, {"ceilings": {"copy_gbps": copy, "matmul_bf16_tflops": matmul,
                                              "launch_floor_ms": floor}})
        report = self.report_json(path)
        self.assertAlmostEqual(report["ceilings"]["launch_floor_ms"], floor)
        by_layer = {l["layer"]: l for l in report["shapes"]}
        at_floor = {}
        for sh in shapes:
            flops, nbytes = flops_and_bytes(sh["shape"])
            least = floor + max(nbytes / (copy * 1e6), flops / (matmul * 1e9))
            best = min(ms for status, ms in sh["kernels"] if status == "ok")
            line = by_layer[sh["layer"]]
            self.assertAlmostEqual(line["at_floor"] / (sh["cudnn"] / least), 1.0, places=9)
            self.assertAlmostEqual(line["floor_share"] / (least / best), 1.0, places=9)
            # The floor only lowers what a kernel can show.
            self.assertLess(line["at_floor"], line["at_ceiling"])
            at_floor.setdefault((sh["direction"], sh["class"], sh["ndim"]), []).append(
                sh["cudnn"] / least)
        for c in report["classes"]:
            at = at_floor[(c["direction"], c["class"], c["ndim"])]
            self.assertAlmostEqual(c["geomean_at_floor"] /
                                   math.exp(sum(map(math.log, at)) / len(at)), 1.0, places=9)
        # The tables gain their "at floor" columns only for a run that measured the floor.
        code, text, err = run_report("--markdown", "--shapes", path)
        self.assertIn("launch floor: %.4f ms" % floor, text)
        self.assertIn("| at ceiling | at floor | worst shape |", text)
        self.assertIn("| ceiling | share | floor share |", text)
        for c in report["classes"]:
            least = 2.0 if c["class"] in ("depthwise", "grouped C/G<=32") else 1.0
            self.assertEqual(c["out_of_reach"], c["geomean_at_floor"] < least)
        # A floor longer than every cuDNN time puts every class's target out of reach.
        write_run(path, shapes, {"ceilings": {"copy_gbps": copy, "matmul_bf16_tflops": matmul,
                                              "launch_floor_ms": 10.0}})
        self.assertTrue(all(c["out_of_reach"] for c in self.report_json(path)["classes"]))
        code, text, err = run_report("--markdown", path)
        rows = [l for l in text.splitlines() if l.startswith("| forward ") or
                l.startswith("| bwd_weight ")]
        self.assertTrue(rows and all("out of reach at the floor" in l for l in rows), text)
        write_run(path, shapes, {"ceilings": {"copy_gbps": copy, "matmul_bf16_tflops": matmul}})
        code, text, err = run_report("--markdown", "--shapes", path)
        self.assertNotIn("at floor", text)
        self.assertFalse(any(c["out_of_reach"] for c in self.report_json(path)["classes"]))
        self.assertIsNone(self.report_json(path)["classes"][0]["geomean_at_floor"])

    def test_flags_serve_when_the_run_measured_no_ceilings(self):
        shapes = self.random_run()
        path = os.path.join(self.dir.name, "run.csv")
        write_run(path, shapes, {"ceilings": {"copy_gbps": None, "matmul_bf16_tflops": None}})
        copy, matmul = self.rng.uniform(2000, 5000), self.rng.uniform(300, 900)
        report = self.report_json("--copy-gbps", str(copy), "--matmul-tflops", str(matmul), path)
        self.assertEqual(report["ceilings"]["copy_from"], "--copy-gbps")
        groups = self.expected(shapes, copy, matmul)
        for c in report["classes"]:
            items = groups[(c["direction"], c["class"], c["ndim"])]
            self.assertAlmostEqual(c["ceiling_min"] / min(s for _, _, s, _ in items), 1.0, places=6)

    def test_the_baseline_file_stands_in_only_for_a_missing_column(self):
        shapes = self.random_run()
        path = os.path.join(self.dir.name, "run.csv")
        write_run(path, shapes, None, with_baseline=False)
        scale = self.rng.uniform(0.5, 2.0)
        shared = {"rows": [{"layer": sh["layer"], "direction": sh["direction"],
                            "cudnn_ms": sh["cudnn"] * scale} for sh in shapes]}
        baseline = os.path.join(self.dir.name, "shared.json")
        with open(baseline, "w") as f:
            json.dump(shared, f)
        report = self.report_json("--baseline", baseline, path)
        self.assertEqual(report["cudnn_from_file"], len(shapes))
        for sh in shapes:
            line = next(l for l in report["shapes"]
                        if l["layer"] == sh["layer"] and l["direction"] == sh["direction"])
            best = min(ms for status, ms in sh["kernels"] if status == "ok")
            self.assertAlmostEqual(line["speedup"], sh["cudnn"] * scale / best, places=9)
            self.assertEqual(line["cudnn_from"], "file")
        code, text, _ = run_report("--baseline", baseline, path)
        self.assertIn("not this run's", text)

    def test_a_class_meeting_every_target_passes_and_one_slow_shape_misses(self):
        copy, matmul = 4000.0, 700.0
        shapes = []
        for n in range(3):
            s = random_shape(self.rng, "depthwise", 2)
            flops, nbytes = flops_and_bytes(s)
            self.assertLess(flops / nbytes, 150)
            ms = nbytes / (self.rng.uniform(0.75, 0.95) * copy * 1e6)
            shapes.append({"direction": "forward", "class": "depthwise", "ndim": 2, "shape": s,
                           "layer": "dw%d" % n, "kernels": [("ok", ms)],
                           "cudnn": ms * self.rng.uniform(2.5, 4.0)})
        path = os.path.join(self.dir.name, "pass.csv")
        meta = {"ceilings": {"copy_gbps": copy, "matmul_bf16_tflops": matmul}}
        write_run(path, shapes, meta)
        code, text, _ = run_report(path)
        self.assertEqual(code, 0, text)
        self.assertIn("PASS", text)
        self.assertNotIn("MISS", text)
        # One shape under 0.9x fails the class however fast the others are.
        shapes[self.rng.randrange(3)]["cudnn"] = shapes[0]["kernels"][0][1] * 0.0001
        write_run(path, shapes, meta)
        code, text, _ = run_report(path)
        self.assertEqual(code, 1, text)
        self.assertIn("MISS", text)
        # A shape no kernel of the pool runs is a miss too.
        shapes[0]["kernels"] = [("unsupported", 1.0)]
        write_run(path, shapes, meta)
        report = self.report_json(path)
        self.assertEqual(report["classes"][0]["uncovered"], 1)
        self.assertFalse(report["classes"][0]["ceiling_pass"])

    def test_a_csv_without_the_full_columns_is_refused_by_name(self):
        path = os.path.join(self.dir.name, "seed.csv")
        with open(path, "w") as f:
            f.write("kernel,N,C,K,G,latency_ms,status\nk,1,8,8,1,0.1,ok\n")
        code, out, _ = run_report(path)
        self.assertEqual(code, 2)
        self.assertIn("seed.csv", out)
        self.assertIn("variant", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
