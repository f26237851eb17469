# Shared set-up of the reliability tests (issue 9): BIN MPIEXEC WORK SRC as arguments.
set -euo pipefail
BIN=$1; MPIEXEC=$2; T=$3; SRC=$4
PY=/usr/bin/python3
MPI=("$MPIEXEC" --allow-run-as-root --oversubscribe --mca osc sm)
CCD=$SRC/tests/data/ccd/components_sample.cif
rm -rf "$T"; mkdir -p "$T"
die() { echo "FAIL: $*" >&2; exit 1; }
# expect_rc RC LOG WHAT CMD...: run CMD (stdout and stderr to LOG); die, naming WHAT and showing LOG,
# unless it exits RC.
expect_rc() {
  local want=$1 log=$2 what=$3 rc=0
  shift 3
  "$@" > "$log" 2>&1 || rc=$?
  [ "$rc" -eq "$want" ] || die "$what: exit $rc, expected $want: $(cat "$log")"
}
# SIGKILL rank 1 of the mpirun started as pid $1 once rank files list >= $2 finished tasks in total.
kill_rank1_after() {
  local mp=$1 want=$2 parts=$3 n=0 i
  for i in $(seq 1 300); do
    n=$($PY - "$parts" <<'PY' 2>/dev/null || echo 0
import glob, sys, h5py
t = 0
for p in glob.glob(sys.argv[1] + "/rank-*.h5"):
    try:
        with h5py.File(p, "r", locking=False) as f: t += f["tasks"].shape[0]
    except Exception: pass
print(t)
PY
)
    [ "$n" -ge "$want" ] && break
    sleep 0.1
  done
  local victim
  victim=$(pgrep -P "$mp" -f sitepack | sort -n | sed -n 2p)
  [ -n "$victim" ] || die "no rank 1 process to kill"
  kill -9 "$victim"
  echo "killed rank pid $victim after $n finished tasks"
}
