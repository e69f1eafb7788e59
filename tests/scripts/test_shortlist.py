#!/usr/bin/env python3
"""bench/shortlist.py: probes spread over every class of a set in proportion (at least one each,
the smallest and largest FLOPs of a large class), the same probes every time; the kernel
shortlist keeps per problem only verified kernels within --within percent of its best and at
most --top, and gconv-instances reads it as a filter that keeps exactly those kernels."""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("GCONV_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
SCRIPT = os.path.join(SOURCE, "bench", "shortlist.py")
INSTANCES = os.environ.get("GCONV_INSTANCES", "")


def dense(n, c, hw, layer):
    return {"N": n, "C": c, "K": c, "G": 1, "Hi": hw, "Wi": hw, "Y": 3, "X": 3, "pad_h": 1,
            "pad_w": 1, "layer": layer}


def depthwise(c, layer):
    return {"N": 2, "C": c, "K": c, "G": c, "Hi": 14, "Wi": 14, "Y": 3, "X": 3, "pad_h": 1,
            "pad_w": 1, "layer": layer}


def dense_3d(layer):
    return {"N": 1, "C": 16, "K": 16, "G": 1, "Di": 4, "Hi": 8, "Wi": 8, "Z": 3, "Y": 3, "X": 3,
            "stride_d": 1, "pad_d": 1, "pad_h": 1, "pad_w": 1, "layer": layer}


class Shortlist(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True,
                              text=True)

    def write_set(self, problems):
        with open(self.path("set.json"), "w") as f:
            json.dump({"key": "s", "direction": "forward", "problems": problems}, f)
        return self.path("set.json")

    def probes(self, problems, count, *extra):
        p = self.run_script("probes", self.write_set(problems), "--count", str(count), "-o",
                            self.path("probes.json"), *extra)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("probes.json")) as f:
            return [q["layer"] for q in json.load(f)["problems"]]

    def test_probes_cover_every_class_in_proportion(self):
        # 16 dense 2D of growing size, 4 depthwise, 1 dense 3D.
        problems = [dense(1 + i, 64, 8 + 2 * i, f"dense{i}") for i in range(16)]
        problems += [depthwise(32 + 16 * i, f"dw{i}") for i in range(4)]
        problems.append(dense_3d("d3"))
        picked = self.probes(problems, 6)
        self.assertEqual(len(picked), 6)
        self.assertIn("d3", picked)  # the one 3D problem: its class is present
        # 3 beyond one per class: 16/21, 4/21 and 1/21 of them are 2.29, 0.57 and 0.14, so
        # dense takes 2 and the largest remainder (depthwise) the last.
        self.assertEqual(sum(1 for p in picked if p.startswith("dw")), 2)
        dense_picked = [p for p in picked if p.startswith("dense")]
        self.assertEqual(len(dense_picked), 3)
        self.assertIn("dense0", dense_picked)   # the fewest FLOPs
        self.assertIn("dense15", dense_picked)  # the most
        self.assertEqual(self.probes(problems, 6), picked)  # the same every time

    def test_fewer_probes_than_classes_still_take_one_of_each(self):
        problems = [dense(2, 64, 16, "a"), depthwise(64, "b"), dense_3d("c")]
        self.assertEqual(sorted(self.probes(problems, 1)), ["a", "b", "c"])

    def test_per_signature_adds_one_probe_per_unprobed_small_group_signature(self):
        def grouped(cg, n, filt, stride, layer):
            return {"N": n, "C": 8 * cg, "K": 8 * cg, "G": 8, "Hi": 28, "Wi": 28, "Y": filt,
                    "X": filt, "stride_h": stride, "stride_w": stride, "layer": layer}
        problems = [dense(1 + i, 64, 16, f"dense{i}") for i in range(4)]
        problems += [grouped(16, n, 3, 1, f"g16_n{n}") for n in (1, 2, 4)]
        problems += [grouped(16, n, 3, 2, f"g16s2_n{n}") for n in (1, 2, 4)]  # another stride
        problems += [grouped(8, 2, 3, 1, "g8"), grouped(16, 2, 5, 1, "g16_5x5")]
        problems += [dense(8, 32, 16, "dense_big")]
        plain = self.probes(problems, 2)
        self.assertEqual(len(plain), 2)
        extra = self.probes(problems, 2, "--per-signature")
        self.assertEqual(extra[:2], plain)  # the proportional probes come first, unchanged
        grouped_picked = [p for p in extra if p.startswith("g")]
        # One per signature: C/G 16 3x3 stride 1 and 2, C/G 8, 5x5; the median FLOPs of each.
        self.assertEqual(len(grouped_picked), 4, extra)
        self.assertEqual(sum(1 for p in grouped_picked if p.startswith("g16s2_")), 1, extra)
        self.assertTrue({"g16_n2", "g8", "g16_5x5"} <= set(grouped_picked), extra)
        self.assertEqual(sum(1 for p in extra if p.startswith("dense")), 1)  # dense gets none
        self.assertEqual(self.probes(problems, 2, "--per-signature"), extra)

    def test_per_signature_tells_channel_vectors_apart(self):
        # Depthwise 3x3 stride 1 over 64, 96 and 40 channels: 16-element vectors fit the first
        # two, 8 the last, so it has a probe of its own.
        problems = [dense(2, 64, 16, "d"), depthwise(64, "dw64"), depthwise(96, "dw96"),
                    depthwise(40, "dw40")]
        picked = self.probes(problems, 2, "--per-signature")
        self.assertIn("dw40", picked)
        self.assertEqual(sum(1 for p in picked if p in ("dw64", "dw96")), 1, picked)

    def test_an_empty_set_is_refused(self):
        p = self.run_script("probes", self.write_set([]), "-o", self.path("p.json"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("no problems", p.stderr)

    def write_runs(self, rows):
        path = self.path("runs.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["variant", "problem_key", "kernel", "latency_ms", "status", "verified"])
            for r in rows:
                w.writerow(("forward",) + r)
        return path

    def shortlist(self, rows, *extra):
        p = self.run_script("kernels", "-o", self.path("filter.txt"), *extra,
                            self.write_runs(rows))
        if p.returncode != 0:
            return p, None
        with open(self.path("filter.txt")) as f:
            text = f.read()
        return p, re.findall(r"'([^']*)'", text)

    def test_kernels_near_each_best_at_most_top(self):
        rows = [("p1", "a", "1.00", "ok", "true"), ("p1", "b", "1.04", "ok", "true"),
                ("p1", "c", "1.20", "ok", "true"),      # over 5 % of p1's best
                ("p1", "d", "0.50", "ok", "false"),     # unverified: never counts
                ("p1", "e", "0.40", "wrong", "false"),  # failed: never counts
                ("p2", "c", "2.00", "ok", "true"), ("p2", "f", "2.01", "ok", "true"),
                ("p2", "g", "2.02", "ok", "true")]
        p, names = self.shortlist(rows, "--within", "5", "--top", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(names), ["a", "b", "c", "f"])  # g: third on p2
        p, names = self.shortlist(rows, "--within", "25", "--top", "3")
        self.assertEqual(sorted(names), ["a", "b", "c", "f", "g"])

    def test_winners_are_each_problems_fastest_verified_kernel(self):
        rows = [("p1", "a", "1.00", "ok", "true"), ("p1", "b", "0.90", "ok", "true"),
                ("p1", "c", "0.10", "ok", "false"),     # unverified: never wins
                ("p2", "a", "2.00", "ok", "true"), ("p2", "d", "2.50", "ok", "true"),
                ("p3", "a", "1.00", "ok", "true")]
        p = self.run_script("winners", "-o", self.path("seed.txt"), self.write_runs(rows))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("seed.txt")) as f:
            lines = f.read().splitlines()
        self.assertTrue(lines[0].startswith("#"))
        self.assertEqual(lines[1:], ["a", "b"])

    def test_a_names_file_becomes_the_same_filter(self):
        with open(self.path("names.txt"), "w") as f:
            f.write("# winners\nb\na  # note\n\n")
        p = self.run_script("filter", "-o", self.path("f.txt"), self.path("names.txt"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("f.txt")) as f:
            self.assertEqual(f.read(), "c.name in ['a', 'b']\n")
        with open(self.path("empty.txt"), "w") as f:
            f.write("# nothing\n")
        p = self.run_script("filter", "-o", self.path("f.txt"), self.path("empty.txt"))
        self.assertEqual(p.returncode, 1)

    def test_seeded_kernels_join_the_shortlist(self):
        with open(self.path("seed.txt"), "w") as f:
            f.write("# earlier winners\nz\n\nb  # already near a best\n")
        rows = [("p1", "a", "1.00", "ok", "true"), ("p1", "b", "1.01", "ok", "true"),
                ("p1", "c", "1.50", "ok", "true")]
        p, names = self.shortlist(rows, "--seed", self.path("seed.txt"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(names), ["a", "b", "z"])
        self.assertIn("2 seeded", p.stdout)
        p, _ = self.shortlist(rows, "--seed", self.path("missing.txt"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("missing.txt", p.stderr)

    def test_runs_without_a_verified_cell_are_refused(self):
        p, _ = self.shortlist([("p1", "a", "1.0", "ok", "false")])
        self.assertEqual(p.returncode, 1)
        self.assertIn("no verified cell", p.stderr)

    @unittest.skipUnless(INSTANCES, "GCONV_INSTANCES (gconv-instances) not built")
    def test_the_filter_keeps_exactly_the_shortlisted_kernels(self):
        config = os.path.join(SOURCE, "configs", "forward_direct_tc.json")
        listed = subprocess.run([INSTANCES, config, "--arch", "sm_90a", "--list"],
                                capture_output=True, text=True)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        names = [line.split()[-1] for line in listed.stdout.splitlines() if line.strip()]
        self.assertGreater(len(names), 3)
        rows = [("p1", names[0], "1.0", "ok", "true"), ("p2", names[2], "1.0", "ok", "true"),
                ("p2", "grouped_conv_forward_bf16_2d_not_in_this_pool", "1.0", "ok", "true")]
        p, _ = self.shortlist(rows)
        self.assertEqual(p.returncode, 0, p.stderr)
        kept = subprocess.run([INSTANCES, config, "--arch", "sm_90a", "--list", "--filter-file",
                               self.path("filter.txt")], capture_output=True, text=True)
        self.assertEqual(kept.returncode, 0, kept.stderr)
        self.assertEqual(sorted(line.split()[-1] for line in kept.stdout.splitlines()
                                if line.strip()), sorted([names[0], names[2]]))


if __name__ == "__main__":
    unittest.main()
