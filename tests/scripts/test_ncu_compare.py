#!/usr/bin/env python3
"""bench/ncu_compare.py on generated Nsight Compute reports: the launch line names each column,
key metrics come in their own order with their units, a metric several sections print counts
once (its first value), warp-stall samples become shares of each report's samples, --all adds
only the metrics that differ, and a file without a launch is refused."""
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("GCONV_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
SCRIPT = os.path.join(SOURCE, "bench", "ncu_compare.py")


def report(entry, grid, duration, tensor, long_sb, arrive, samples, extra=1.0):
    stall = "    Warp Stall Sampling (All Samples) (smsp__pcsamp_warps_issue_stalled_{}) {:>20} {}"
    return "\n".join([
        "==PROF== Connected to process 1",
        f"  {entry} ({grid}, 1, 1)x(384, 1, 1), Context 1, Stream 13, Device 0, CC 9.0",
        "    Section: GPU Speed Of Light Throughput",
        "    ----------------------- ----------- ------------",
        f"    Duration                         us        {duration}",
        "    Elapsed Cycles                cycle       22,925",
        f"    SM: Pipe Tensor Cycles Active            %        {tensor}",
        "    Section: Occupancy",
        f"    Duration                         us        999.0",
        f"    Some Other Metric                          {extra}",
        "    Same Everywhere                            7",
        stall.format("long_scoreboard", "warp", long_sb),
        stall.format("warpgroup_arrive", "warp", arrive),
        f"    # Samples                                                      {samples:,}",
    ]) + "\n"


class NcuCompare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def cells(self, out, label):
        for line in out.splitlines():
            parts = [p.strip() for p in line.strip("|").split("|")]
            if parts[0] == label:
                return parts[1:]
        self.fail(f"no row '{label}' in\n{out}")

    def test_side_by_side(self):
        a = self.write("a.ncu.txt", report("gconv_main", 128, "12.45", "22.86", 571, 0, 1060))
        b = self.write("b.ncu.txt", report("nvjet_x", 120, "9.18", "29.37", 255, 87, 689, 2.0))
        p = self.run_script(a, b)
        self.assertEqual(p.returncode, 0, p.stderr)
        header = p.stdout.splitlines()[0]
        self.assertIn("gconv_main (128x1x1 blocks of 384)", header)
        self.assertIn("nvjet_x (120x1x1 blocks of 384)", header)
        self.assertEqual(self.cells(p.stdout, "Duration (us)"), ["12.45", "9.18"])
        self.assertEqual(self.cells(p.stdout, "Elapsed Cycles (cycle)"), ["22,925", "22,925"])
        self.assertEqual(self.cells(p.stdout, "stall long_scoreboard (% of samples)"),
                         [f"{100 * 571 / 1060:.2f}", f"{100 * 255 / 689:.2f}"])
        self.assertEqual(self.cells(p.stdout, "stall warpgroup_arrive (% of samples)"),
                         ["0", f"{100 * 87 / 689:.2f}"])
        lines = p.stdout.splitlines()
        self.assertLess(lines.index(next(l for l in lines if l.startswith("| Duration"))),
                        lines.index(next(l for l in lines if l.startswith("| stall"))))
        self.assertNotIn("Some Other Metric", p.stdout)
        p = self.run_script("--all", a, b)
        self.assertEqual(self.cells(p.stdout, "Some Other Metric"), ["1", "2"])
        self.assertNotIn("Same Everywhere", p.stdout)

    def test_refuses_a_file_without_a_launch(self):
        a = self.write("a.ncu.txt", report("gconv_main", 128, "12.45", "22.86", 571, 0, 1060))
        bad = self.write("bad.txt", "build: 0 compiled\n==ERROR== no kernels were profiled\n")
        p = self.run_script(a, bad)
        self.assertEqual(p.returncode, 1)
        self.assertIn("bad.txt", p.stderr)
        self.assertEqual(self.run_script(a).returncode, 2)


if __name__ == "__main__":
    unittest.main()
