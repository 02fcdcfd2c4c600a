#!/usr/bin/env bash
# A single-node Slurm on this machine, from Debian's packages (slurm-wlm, munge), for tests and
# trying `arena slurm` out: its own munge key and munged, a slurm.conf with one node (this
# machine's hostname and `slurmd -C` hardware), proctrack/linuxproc, task/none,
# select/cons_tres, no accounting, slurmctld and slurmd. Everything lives in one state
# directory; nothing in /etc is touched. Jobs run as the user who submits them (root too).
#
# Usage: scripts/slurm-local.sh start|stop|status|env|logs
#   start   bring it up (stops a previous instance of the same state directory first; on any
#           failure the daemons started so far are killed), wait until the node is idle
#   stop    kill the daemons (also after a failed start) and remove the state directory
#   status  sinfo and squeue
#   env     print `export SLURM_CONF=...` for sbatch/squeue/sacct
#   logs    print the daemons' logs
# Environment: ARENA_SLURM_DIR (state directory, default /tmp/arena-slurm-$UID),
#   ARENA_SLURM_PORT (slurmctld port, default 26817; slurmd uses the next one).
# Known to work with Slurm 22.05 from Debian 12.
set -euo pipefail

STATE=${ARENA_SLURM_DIR:-/tmp/arena-slurm-$(id -u)}
PORT=${ARENA_SLURM_PORT:-26817}
CONF=$STATE/slurm.conf

die() { echo "slurm-local: $*" >&2; exit 1; }

pids() {
  for f in "$STATE"/slurmd.pid "$STATE"/slurmctld.pid "$STATE"/munged.pid; do
    [ -s "$f" ] && cat "$f" 2>/dev/null
  done
  return 0
}

stop() {
  # Jobs of this cluster first, while slurmctld can still signal them.
  if [ -f "$CONF" ] && [ -s "$STATE"/slurmctld.pid ]; then
    jobs=$(SLURM_CONF=$CONF timeout 5 squeue -h -o %A 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$CONF timeout 5 scancel $jobs 2>/dev/null || true
      sleep 1
    fi
  fi
  for pid in $(pids); do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=0
    for pid in $(pids); do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in $(pids); do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$STATE"
}

logs() {
  for f in slurmctld.log slurmd.log munged.log; do
    echo "=== $STATE/$f"
    tail -n "${1:-60}" "$STATE/$f" 2>/dev/null || echo "(none)"
  done
}

start() {
  command -v slurmctld >/dev/null && command -v munged >/dev/null \
    || die "slurmctld or munged missing: apt-get install -y slurm-wlm munge"
  [ -d "$STATE" ] && stop
  mkdir -p "$STATE"/munge "$STATE"/ctld "$STATE"/spool
  chmod 700 "$STATE" "$STATE"/munge
  trap 'echo "slurm-local: start failed; logs:" >&2; logs 30 >&2; stop' ERR

  # munge: its own key and socket.
  dd if=/dev/urandom of="$STATE"/munge/munge.key bs=1024 count=1 status=none
  chmod 400 "$STATE"/munge/munge.key
  munged --force --key-file="$STATE"/munge/munge.key --socket="$STATE"/munge/socket \
    --pid-file="$STATE"/munged.pid --log-file="$STATE"/munged.log --seed-file="$STATE"/munge/seed
  for _ in $(seq 50); do [ -S "$STATE"/munge/socket ] && break; sleep 0.1; done
  [ -S "$STATE"/munge/socket ] || die "munged did not start"

  local host node user
  host=$(hostname -s)
  # This machine's hardware as slurmd sees it (CPUs, sockets, cores, threads, memory).
  node=$(slurmd -C | head -n1)
  user=$(id -un)
  cat >"$CONF" <<EOF
ClusterName=arena-local
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$STATE/munge/socket
CredType=cred/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=300
KillWait=5
$node State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  slurmctld -f "$CONF" -i
  slurmd -f "$CONF"
  export SLURM_CONF=$CONF
  for _ in $(seq 150); do
    state=$(sinfo -h -N -o '%t' 2>/dev/null | head -n1 || true)
    case "$state" in idle*|mix*|alloc*) break ;; esac
    sleep 0.2
  done
  case "$state" in idle*|mix*|alloc*) ;; *) false ;; esac
  trap - ERR
  echo "slurm-local: up (node $host, state $STATE); export SLURM_CONF=$CONF"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) SLURM_CONF=$CONF sinfo; SLURM_CONF=$CONF squeue ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  logs) logs "${2:-200}" ;;
  *) echo "usage: $0 start|stop|status|env|logs" >&2; exit 2 ;;
esac
