#!/usr/bin/env python3
"""bench/multi_gpu_speedup.py on the fake worker pretending to be a host of GPUs: its report
matches the two runs' sidecars, and its exit status says met (0), missed (1) or not comparable
(2). The timing itself is not judged here (tests/gpu/tst_bench_devices.cpp does that)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("GCONV_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
SCRIPT = os.path.join(SOURCE, "bench", "multi_gpu_speedup.py")
BENCH = os.environ.get("GCONV_BENCH", "")
FAKE = os.environ.get("GCONV_FAKE_WORKER", "")


@unittest.skipUnless(os.path.exists(BENCH) and os.path.exists(FAKE),
                     "GCONV_BENCH / GCONV_FAKE_WORKER not built")
class MultiGpuSpeedup(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.cache = os.path.join(cls.tmp.name, "cache")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_script(self, gpus, *extra, sweep=None):
        env = dict(os.environ, GCONV_FAKE_DEVICES=gpus, GCONV_FAKE_DELAY_MS="10")
        env.pop("CUDA_VISIBLE_DEVICES", None)
        out = tempfile.mkdtemp(dir=self.tmp.name)
        sweep = sweep or ["--variant", "forward", "--arch", "sm_90", "--problems",
                          "forward_2d_test_validation", "--max-kernels", "3", "--filter",
                          "c.pipeline == 'compv3'", "--worker", FAKE, "--cache-dir", self.cache]
        p = subprocess.run([sys.executable, SCRIPT, "--bench", BENCH, "--out", out, "--json"] +
                           list(extra) + ["--"] + sweep, capture_output=True, text=True, env=env)
        return p, out

    def test_report_matches_the_sidecars(self):
        p, out = self.run_script("Fake H200,Fake H200", "--target", "100")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        report = json.loads(p.stdout)
        metas = {}
        for name in ("devices_0", "devices_all"):
            with open(os.path.join(out, name + ".csv.meta.json")) as f:
                metas[name] = json.load(f)
        single, multi = metas["devices_0"], metas["devices_all"]
        self.assertEqual(report["single"]["wall_s"], single["benchmark"]["wall_s"])
        self.assertEqual(report["multi"]["wall_s"], multi["benchmark"]["wall_s"])
        self.assertAlmostEqual(report["ratio"],
                               multi["benchmark"]["wall_s"] / single["benchmark"]["wall_s"])
        self.assertEqual([g["index"] for g in report["single"]["gpus"]], [0])
        self.assertEqual([g["index"] for g in report["multi"]["gpus"]], [0, 1])
        self.assertEqual(sum(g["rows_written"] for g in report["multi"]["gpus"]),
                         sum(d["rows_written"] for d in multi["devices"]))
        self.assertEqual(report["single"]["cells"], 66)
        self.assertEqual(report["single"]["measured"], report["multi"]["measured"])
        self.assertTrue(report["meets_target"])
        self.assertEqual(report["problems"], [])

    def test_a_missed_target_exits_1(self):
        p, _ = self.run_script("Fake H200,Fake H200", "--target", "0.000001")
        self.assertEqual(p.returncode, 1, p.stderr + p.stdout)
        self.assertFalse(json.loads(p.stdout)["meets_target"])

    def test_one_gpu_is_nothing_to_compare(self):
        p, _ = self.run_script("Fake H200", "--target", "100")
        self.assertEqual(p.returncode, 2, p.stderr + p.stdout)
        self.assertIn("nothing to compare", " ".join(json.loads(p.stdout)["problems"]))

    def test_flags_it_sets_itself_are_refused(self):
        p, _ = self.run_script("Fake H200", sweep=["--variant", "forward", "--output", "x.csv"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--output is set by this script", p.stderr)

    def test_a_failed_run_exits_2(self):
        p, _ = self.run_script("Fake H200,Fake H200", sweep=["--variant", "sideways"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("failed (exit 2)", p.stderr)


if __name__ == "__main__":
    unittest.main()
