#!/usr/bin/env python3
"""bench/ab_table.py on generated runs: per shape the best verified latency of each build (failed
and unverified cells never count), the new build's speedup over the base, each against cuDNN, and
geomeans over the shapes both builds ran."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("GCONV_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
SCRIPT = os.path.join(SOURCE, "bench", "ab_table.py")
FIELDS = ["kernel", "variant", "layer", "latency_ms", "status", "verified", "baseline_ms"]


class AbTable(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def runs(self, file_name, rows):
        path = os.path.join(self.tmp.name, file_name)
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(FIELDS)
            w.writerows(rows)
        return path

    def table(self, base_rows, new_rows):
        p = subprocess.run([sys.executable, SCRIPT, "--base", self.runs("a.csv", base_rows),
                            "--new", self.runs("b.csv", new_rows)], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def row(self, out, layer):
        for line in out.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) > 1 and cells[1] == layer:
                return cells
        self.fail(f"no row for {layer}:\n{out}")

    def test_best_verified_cell_per_build_and_ratios(self):
        base = [("k1", "forward", "s1", "0.0200", "ok", "true", ""),
                ("k2", "forward", "s1", "0.0100", "fail", "false", ""),  # never counts
                ("k3", "forward", "s1", "0.0160", "ok", "true", ""),
                ("k1", "forward", "s2", "0.0400", "ok", "true", "")]
        new = [("k1", "forward", "s1", "0.0080", "ok", "true", "0.0160"),
               ("k3", "forward", "s1", "0.0050", "ok", "false", "0.0160"),  # unverified
               ("k1", "forward", "s2", "0.0800", "ok", "true", "0.0400")]
        out = self.table(base, new)
        s1, s2 = self.row(out, "s1"), self.row(out, "s2")
        self.assertEqual(s1[2:8], ["0.0160", "0.0080", "2.00x", "0.0160", "1.00x", "2.00x"])
        self.assertEqual(s2[2:8], ["0.0400", "0.0800", "0.50x", "0.0400", "1.00x", "0.50x"])
        self.assertIn("geomean over 2 shapes both ran: new / base 1.000x", out)
        self.assertIn("against cuDNN base 1.000x, new 1.000x", out)

    def test_a_shape_one_build_missed_is_shown_but_not_averaged(self):
        base = [("k1", "bwd_data", "s1", "0.0100", "ok", "true", "")]
        new = [("k1", "bwd_data", "s1", "0.0050", "ok", "true", ""),
               ("k1", "bwd_data", "s3", "0.0050", "ok", "true", "")]
        out = self.table(base, new)
        self.assertEqual(self.row(out, "s3")[2:5], ["-", "0.0050", "-"])
        self.assertIn("geomean over 1 shapes both ran: new / base 2.000x", out)
        # Runs without cuDNN beside them say so instead of a geomean of nothing.
        self.assertIn("no cuDNN baseline in the runs", out)
        self.assertNotIn("nan", out)

    def test_two_kinds_of_kernel_of_one_run(self):
        rows = [("t1", "forward", "s1", "0.0200", "ok", "true", "0.0300"),
                ("t1_kx", "forward", "s1", "0.0100", "ok", "true", "0.0300"),
                ("t2", "forward", "s2", "0.0100", "ok", "true", "0.0300"),
                ("t2_kx", "forward", "s2", "0.0400", "ok", "true", "0.0300")]
        run = self.runs("one.csv", rows)
        p = subprocess.run([sys.executable, SCRIPT, "--base", run, "--new", run, "--base-match",
                            "(?<!_kx)$", "--new-match", "_kx$"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.row(p.stdout, "s1")[2:5], ["0.0200", "0.0100", "2.00x"])
        self.assertEqual(self.row(p.stdout, "s2")[2:5], ["0.0100", "0.0400", "0.25x"])


if __name__ == "__main__":
    unittest.main()
