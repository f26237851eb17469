#!/usr/bin/env python3
"""--resume after a same-size edit: a killed run, one of its finished inputs edited in place without
changing its size (one digit of a coordinate), then `sitepack run --resume`. The edit must be seen
(the size is the same, so only the SHA-256 tells: "1 changed since"), the file processed again, and
the merged file equal to a fresh run of the edited inputs (compare_h5.py). A mutation that trusts an
unchanged size alone passes the size-changing edit of reliability_resume and fails here.

The run (-np 2) loses rank 1 to SIGKILL once its per-rank files list 3 finished tasks, as in
reliability_resume; mpirun then ends rank 0. 24 plain inputs with SITEPACK_TEST_TASK_DELAY_MS=400 (a
random 0..400 ms per task) take a few seconds, far longer than the polling needs.
usage: resume_same_size.py SITEPACK MPIEXEC WORKDIR SRC"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py

BIN, MPIEXEC, T, SRC = sys.argv[1:5]
MPI = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "--mca", "osc", "sm", "-np", "1"]
MPI2 = MPI[:-1] + ["2"]
CCD = os.path.join(SRC, "tests/data/ccd/components_sample.cif")


def die(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


shutil.rmtree(T, ignore_errors=True)
inp = os.path.join(T, "in")
os.makedirs(inp)
plain = ["1cbn.pdb", "1hvr.pdb", "1rmd.pdb", "1stp.cif", "5i55.cif", "7gsa.cif"]
for name in plain:
    data = open(os.path.join(SRC, "tests/data/structures", name), "rb").read()
    stem, ext = os.path.splitext(name)
    for k in range(4):  # distinct bytes: not duplicates of each other
        extra = b"" if k == 0 else (f"REMARK 999 copy {k}\n".encode() if ext == ".pdb" else f"# copy {k}\n".encode())
        open(os.path.join(inp, f"{stem}_{k}{ext}"), "wb").write(extra + data)

out = os.path.join(T, "k.h5")
env = dict(os.environ, SITEPACK_TEST_TASK_DELAY_MS="400")


def finished(parts):
    n = 0
    for f in glob.glob(parts + "/rank-*.h5"):
        try:
            with h5py.File(f, "r", locking=False) as h:
                n += h["tasks"].shape[0]
        except Exception:
            pass
    return n


def killed_run():
    """Start the run at -np 2, SIGKILL rank 1 once 3 tasks are finished (mpirun then ends rank 0, whose
    per-rank file stays readable: as reliability_resume does); the paths rank 0 finished."""
    for d in (out + ".parts", out + ".resume"):
        shutil.rmtree(d, ignore_errors=True)
    for f in glob.glob(out + "*"):  # the output of an earlier attempt's --resume, its report
        if os.path.isfile(f):
            os.remove(f)
    p = subprocess.Popen(MPI2 + [BIN, "run", "--input", inp, "--ccd", CCD, "--out", out, "--quiet", "--force"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    t0 = time.monotonic()
    while finished(out + ".parts") < 3:
        if p.poll() is not None:
            die(f"the run ended (exit {p.returncode}) before 3 tasks were seen")
        if time.monotonic() - t0 > 120:
            os.killpg(p.pid, signal.SIGKILL)
            die("no 3 finished tasks within 120 s")
        time.sleep(0.05)
    ranks = subprocess.run(["pgrep", "-P", str(p.pid), "-f", "sitepack"], capture_output=True, text=True).stdout.split()
    if len(ranks) < 2:
        os.killpg(p.pid, signal.SIGKILL)
        die(f"no rank 1 process to kill (children of mpirun: {ranks})")
    os.kill(sorted(int(x) for x in ranks)[1], signal.SIGKILL)
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    if os.path.exists(out):
        die("the killed run left its output under the final name")
    with h5py.File(os.path.join(out + ".parts", "rank-00000.h5"), "r", locking=False) as h:
        return [r["path"].decode() for r in h["structures/rows"][:]]


def edit_same_size(victim):
    data = bytearray(open(victim, "rb").read())
    # the last digit of the first atom record's x coordinate (PDB: column 38; mmCIF: the first
    # "dd.ddd"-like token of the first ATOM/HETATM row)
    i = data.find(b"\nATOM")
    if i < 0:
        i = data.find(b"\nHETATM")
    line_end = data.find(b"\n", i + 1)
    line = bytes(data[i + 1:line_end])
    pos, col = -1, 0
    if victim.endswith(".pdb"):
        pos = i + 1 + 37
    else:
        for tok in line.split(b" "):
            if pos < 0 and b"." in tok and tok.replace(b".", b"").replace(b"-", b"").isdigit() and len(tok) >= 5:
                pos = i + 1 + col + len(tok) - 1
            col += len(tok) + 1
    if pos < 0 or not chr(data[pos]).isdigit():
        die(f"no coordinate digit found in {victim}: {line!r}")
    size = len(data)
    data[pos] = ord(str((int(chr(data[pos])) + 1) % 10))
    open(victim, "wb").write(data)
    if os.path.getsize(victim) != size:
        die("the edit changed the size")
    print(f"edited {os.path.basename(victim)} in place (same size {size}): {bytes(data[i + 1:line_end])!r}")


# a kill can land while the per-rank file is open for writing: HDF5 then refuses it and --resume runs
# everything again (correctly, but nothing is resumed and the edit is not put to the test): up to 5 tries
for attempt in range(1, 6):
    done = killed_run()
    if not done:
        continue
    edit_same_size(os.path.join(inp, done[0]))
    r = subprocess.run(MPI + [BIN, "run", "--input", inp, "--ccd", CCD, "--out", out, "--resume"],
                       capture_output=True, text=True)
    log = r.stdout + r.stderr
    if r.returncode != 0:
        die(f"--resume exited {r.returncode}: {log[-2000:]}")
    if "unreadable" in log and " 0 files (0 tasks) resumed" in log:
        print(f"attempt {attempt}: the killed run's per-rank file was unreadable, nothing resumed: again")
        continue
    if " 1 changed since" not in log:
        die("the same-size edit was not seen (expected '1 changed since'):\n" + log[-2000:])
    break
else:
    die("5 killed runs, none left a readable per-rank file")
fresh = os.path.join(T, "fresh.h5")
subprocess.run(MPI + [BIN, "run", "--input", inp, "--ccd", CCD, "--out", fresh, "--quiet"], check=True)
c = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests/integration/compare_h5.py"), fresh, out])
if c.returncode != 0:
    die("the resumed output differs from a fresh run of the edited inputs")
print("resume_same_size: ok")
