# Sourced by tests/integration/slurm_*.sh: a private, single-node SLURM for one test.
#
#   slurm_start DIR     munged (private socket in DIR), slurmctld -D -i, slurmd -D with a
#                       minimal slurm.conf in DIR (free ports, spool and state in DIR); exports
#                       SLURM_CONF; waits until the node is idle. Everything it starts is stopped
#                       by PID in slurm_stop (installed as an EXIT trap).
#   slurm_wait_gone JOBID... [TIMEOUT_S]   bounded squeue loop until none of the jobs is queued/running
#   slurm_state JOBID   final state of a job (sacct is not available without accounting: scontrol)
#
# Exit code 77 (ctest SKIP_RETURN_CODE) only when SLURM cannot be installed (not root and not
# installed, or apt-get failed); any other problem fails the test.
SLURM_PIDS=()
SLURM_SKIP=77

slurm_log() { echo "[slurm $(date +%T)] $*"; }

slurm_install() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null &&
     command -v munged >/dev/null; then
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "SKIP: slurm-wlm/munge not installed and not root (apt-get install slurm-wlm munge)"
    exit $SLURM_SKIP
  fi
  slurm_log "installing slurm-wlm munge"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
           slurm-wlm munge >/dev/null; }; then
    echo "SKIP: apt-get install slurm-wlm munge failed"
    exit $SLURM_SKIP
  fi
}

slurm_stop() {
  local i pid
  for ((i = ${#SLURM_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${SLURM_PIDS[$i]}
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${SLURM_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  SLURM_PIDS=()
}

slurm_free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

slurm_start() {
  local dir=$1
  [ "$(id -u)" = 0 ] || { echo "SKIP: the SLURM tests run the daemons as root"; exit $SLURM_SKIP; }
  slurm_install
  trap slurm_stop EXIT
  mkdir -p "$dir/spool" "$dir/state" "$dir/log"

  # munge: our own munged (as the munge user, with the system key) on a private socket in DIR, so
  # that tests of several build trees never share or stop each other's daemon
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null ||
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown munge:munge /etc/munge /etc/munge/munge.key
  chmod 0700 /etc/munge
  chmod 0400 /etc/munge/munge.key
  mkdir -p /run/munge
  chown munge:munge /run/munge
  chmod 0755 /run/munge
  local m=$dir/munge
  mkdir -p "$m"
  chmod 0755 "$dir" "$(dirname "$dir")"
  chown munge:munge "$m"
  chmod 0755 "$m"
  MUNGE_SOCKET=$m/munge.socket
  setpriv --reuid=munge --regid=munge --clear-groups munged -F --socket="$MUNGE_SOCKET" \
    --pid-file="$m/munged.pid" --log-file="$m/munged.log" --seed-file="$m/munged.seed" \
    >"$dir/log/munged.out" 2>&1 &
  SLURM_PIDS+=($!)
  for _ in $(seq 50); do munge -S "$MUNGE_SOCKET" -n 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1 && break; sleep 0.1; done
  munge -S "$MUNGE_SOCKET" -n | unmunge -S "$MUNGE_SOCKET" >/dev/null ||
    { echo "FAIL: munged does not answer"; cat "$dir/log/munged.out" "$m/munged.log"; exit 1; }

  local host cpus cport dport
  host=$(hostname -s)
  cpus=$(nproc)
  cport=$(slurm_free_port)
  dport=$(slurm_free_port)
  while [ "$dport" = "$cport" ]; do dport=$(slurm_free_port); done
  cat >"$dir/slurm.conf" <<EOF
ClusterName=sitepacktest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
ReturnToService=2
SlurmdSpoolDir=$dir/spool
StateSaveLocation=$dir/state
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MinJobAge=300
KillWait=5
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -D -i >"$dir/log/slurmctld.out" 2>&1 &
  SLURM_PIDS+=($!)
  slurmd -D -N "$host" >"$dir/log/slurmd.out" 2>&1 &
  SLURM_PIDS+=($!)
  local st=""
  for _ in $(seq 300); do
    st=$(sinfo -h -N -o '%T' 2>/dev/null | head -n1)
    case "$st" in idle*) break ;; esac
    sleep 0.1
  done
  case "$st" in
    idle*) slurm_log "node $host idle (SLURM_CONF=$SLURM_CONF)" ;;
    *) echo "FAIL: SLURM node not idle after 30 s (state '$st')"
       tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$dir/log/"*.out 2>/dev/null
       exit 1 ;;
  esac
}

# Bounded wait: until none of the given jobs (array jobs included) is pending or running.
slurm_wait_gone() {
  local timeout=120 ids=()
  for a in "$@"; do
    case "$a" in --timeout=*) timeout=${a#--timeout=} ;; *) ids+=("$a") ;; esac
  done
  local list
  list=$(IFS=,; echo "${ids[*]}")
  local t0=$SECONDS left
  while :; do
    left=$(squeue -h -j "$list" -o '%i %T %r' 2>/dev/null | grep -v -E ' (COMPLETED|FAILED|CANCELLED|TIMEOUT)' || true)
    [ -z "$left" ] && return 0
    if ((SECONDS - t0 > timeout)); then
      echo "FAIL: jobs still queued after ${timeout}s:"; echo "$left"
      squeue; return 1
    fi
    sleep 0.5
  done
}

# Final state of a job or array task ("123" or "123_2"), from scontrol (kept MinJobAge=300 s).
slurm_state() {
  scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p' | head -n1
}
