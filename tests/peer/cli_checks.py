"""Failures collected by the fast CLI tests (test_split_both_fast.py, test_export_charges_fast.py): check()
records a failed condition and goes on, run() runs a sitepack command and records a non-zero exit with its
stderr; the test exits 1 when `fails` is not empty."""
import subprocess

fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
        print("FAIL:", msg)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, f"{' '.join(args[:2])}: exit {p.returncode}: {p.stderr.strip()[:400]}")
    return p
