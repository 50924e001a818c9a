#!/usr/bin/env bash
# A real Slurm cluster on this machine for the fleet tests: munged, slurmctld, and one slurmd
# per "node", each node in its own network namespace (its own address and ports, as a real
# node has) and its own UTS namespace (its own hostname). Debian's slurm-wlm and munge; root.
#
#   test/slurm/cluster.sh start [NODES]   start NODES nodes (default 3), print the SLURM_CONF path
#   test/slurm/cluster.sh stop            stop everything it started and remove its namespaces
#   test/slurm/cluster.sh status          sinfo of the running cluster
#
# State lives in $SDMA_SLURM_DIR (default /tmp/sdma-lens-slurm). The nodes share this
# machine's file system, as cluster nodes share a home directory. Node i is n<i>, at
# 10.77.<i>.2 in the namespace sdma-n<i>, reached over a veth whose host end is 10.77.<i>.1.
set -euo pipefail

dir=${SDMA_SLURM_DIR:-/tmp/sdma-lens-slurm}
conf=$dir/slurm.conf
host=$(hostname -s)

need() { command -v "$1" >/dev/null || { echo "cluster.sh: $1 is missing (apt-get install slurmctld slurmd slurm-client munge iproute2)" >&2; exit 1; }; }

wait_for() { # seconds, description, command...
  local limit=$1 what=$2; shift 2
  for _ in $(seq 1 $((limit * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "cluster.sh: $what did not come up within ${limit} s; logs in $dir" >&2
  tail -n 20 "$dir"/*.log >&2 || true
  return 1
}

stop() {
  for pidfile in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  sleep 0.5
  for pidfile in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
  for ns in $(ip netns list 2>/dev/null | awk '/^sdma-n[0-9]+/ {print $1}'); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
  # Forwarding back as it was before start.
  if [ -f "$dir/ip_forward" ]; then cat "$dir/ip_forward" > /proc/sys/net/ipv4/ip_forward 2>/dev/null || true; rm -f "$dir/ip_forward"; fi
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | grep -E '^sdma-h[0-9]+' | cut -d@ -f1); do
    ip link del "$link" 2>/dev/null || true
  done
}

start() {
  local nodes=${1:-3}
  for c in munged slurmctld slurmd srun ip unshare; do need "$c"; done
  stop
  rm -rf "$dir"
  mkdir -p "$dir/state" "$dir/spool"
  chmod 755 "$dir"

  dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge.key"
  munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
  wait_for 10 munged test -S "$dir/munge.sock"

  local names=()
  for i in $(seq 1 "$nodes"); do
    names+=("n$i")
    mkdir -p "$dir/spool/n$i"
    ip netns add "sdma-n$i"
    ip link add "sdma-h$i" type veth peer name "sdma-v$i"
    ip link set "sdma-v$i" netns "sdma-n$i"
    ip addr add "10.77.$i.1/24" dev "sdma-h$i"
    ip link set "sdma-h$i" up
    ip netns exec "sdma-n$i" ip link set lo up
    ip netns exec "sdma-n$i" ip addr add "10.77.$i.2/24" dev "sdma-v$i"
    ip netns exec "sdma-n$i" ip link set "sdma-v$i" up
    ip netns exec "sdma-n$i" ip route add default via "10.77.$i.1"
  done

  # Node to node (a batch job's srun on n1 starting steps on n2): the host routes between the veths.
  cat /proc/sys/net/ipv4/ip_forward > "$dir/ip_forward"
  echo 1 > /proc/sys/net/ipv4/ip_forward

  local cpus=1
  {
    echo "ClusterName=sdmalens"
    echo "SlurmctldHost=$host(10.77.1.1)"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$dir/munge.sock"
    echo "CredType=cred/munge"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "SlurmctldPidFile=$dir/slurmctld.pid"
    echo "SlurmdPidFile=$dir/slurmd-%n.pid"
    echo "SlurmctldLogFile=$dir/slurmctld.log"
    echo "SlurmdLogFile=$dir/slurmd-%n.log"
    echo "ProctrackType=proctrack/pgid"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "MpiDefault=none"
    echo "SwitchType=switch/none"
    echo "SchedulerType=sched/builtin"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=30"
    echo "KillWait=5"
    echo "MinJobAge=5"
    echo "InactiveLimit=0"
    for i in $(seq 1 "$nodes"); do
      echo "NodeName=n$i NodeAddr=10.77.$i.2 NodeHostname=n$i CPUs=$cpus State=UNKNOWN"
    done
    echo "PartitionName=gpu Nodes=$(IFS=,; echo "${names[*]}") Default=YES MaxTime=INFINITE State=UP"
  } > "$conf"
  # slurmd starts a cgroup plugin whatever the proctrack: v1 where /sys/fs/cgroup is a tmpfs of v1 hierarchies.
  if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ]; then
    printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=yes\n' > "$dir/cgroup.conf"
  fi
  export SLURM_CONF=$conf

  slurmctld -f "$conf" -i
  wait_for 20 slurmctld env SLURM_CONF="$conf" scontrol ping
  for i in $(seq 1 "$nodes"); do
    # Its own hostname (UTS namespace) and its own network (netns), one slurmd each.
    ip netns exec "sdma-n$i" unshare --uts sh -c "hostname n$i && exec slurmd -f '$conf' -N n$i"
  done
  wait_for 30 "$nodes slurmd nodes" sh -c "[ \$(SLURM_CONF='$conf' sinfo -h -N -t idle -o %N | wc -l) -eq $nodes ]"
  echo "$conf"
}

case "${1:-}" in
  start) start "${2:-3}" ;;
  stop) stop ;;
  status) SLURM_CONF=$conf sinfo -N ;;
  *) echo "usage: $0 start [NODES] | stop | status" >&2; exit 2 ;;
esac
