# shellcheck shell=bash
# A real Slurm on this one machine, for the tests beside this file: munged with its own key,
# slurmctld and one slurmd per node name (NodeName=... NodeHostname=this host, each its own
# port), no cgroups (proctrack/linuxproc, task/none), everything under one private folder.
# Sourced, not run. Nothing here is left running: slurm_stop (the caller's EXIT trap) stops each
# daemon by its pid file, waits for it, and fails if one is still alive.
#
#   slurm_start DIR HEALTHCHECK NODE...   start; SLURM_CONF is exported; returns non-zero with
#                                         the daemons' logs on stderr if one does not come up
#   slurm_stop                            stop all, remove /tmp state of this cluster's jobs
#   slurm_wait_state NODE REGEX SECONDS   waits until `scontrol show node` State= matches
#   slurm_node_reason NODE                the node's drain reason, without "[user@time]"
#
# HEALTHCHECK is the HealthCheckProgram (absolute path; slurmd runs it with SLURMD_NODENAME as
# its only environment), run at slurmd's start and every SLURM_TEST_HEALTH_INTERVAL seconds
# (default 2). Daemons run as root (SlurmUser=root): CI containers are root, and the state is
# the test's own.

slurm_dir=
slurm_nodes=()

# free_ports N: N TCP ports free on the loopback now (the kernel's choice, released at once).
free_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

slurm_start() {
  slurm_dir=$1
  local healthcheck=$2
  shift 2
  slurm_nodes=("$@")
  local host
  host=$(hostname -s)
  mkdir -p "$slurm_dir"/{munge,state,log,spool}
  # munged checks that its folders are not writable by others and that its key is private.
  chmod 700 "$slurm_dir/munge"
  dd if=/dev/urandom of="$slurm_dir/munge/munge.key" bs=1024 count=1 2>/dev/null
  chmod 400 "$slurm_dir/munge/munge.key"
  # --force: munged refuses to run as root, or with a socket folder others cannot enter, without it.
  munged --force --key-file="$slurm_dir/munge/munge.key" --socket="$slurm_dir/munge/socket" \
    --pid-file="$slurm_dir/munge/munged.pid" --log-file="$slurm_dir/log/munged.log" \
    --seed-file="$slurm_dir/munge/seed" || {
    echo "munged did not start: $(tail -3 "$slurm_dir/log/munged.log" 2>/dev/null)" >&2
    return 1
  }
  local ports
  read -r -a ports <<<"$(free_ports $((${#slurm_nodes[@]} + 1)))"
  {
    echo "ClusterName=gpuspec-test"
    echo "SlurmctldHost=$host(127.0.0.1)"
    echo "SlurmctldPort=${ports[0]}"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$slurm_dir/munge/socket"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$slurm_dir/state"
    echo "SlurmdSpoolDir=$slurm_dir/spool/%n"
    echo "SlurmctldPidFile=$slurm_dir/slurmctld.pid"
    echo "SlurmdPidFile=$slurm_dir/slurmd-%n.pid"
    echo "SlurmctldLogFile=$slurm_dir/log/slurmctld.log"
    echo "SlurmdLogFile=$slurm_dir/log/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "SchedulerType=sched/backfill"
    echo "MpiDefault=none"
    echo "ReturnToService=2"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "JobCompType=jobcomp/none"
    # Job ids far from 1, so that two clusters of these tests never share /tmp/spmix_appdir_*.
    echo "FirstJobId=$((100000 + RANDOM * 10))"
    echo "HealthCheckProgram=$healthcheck"
    echo "HealthCheckInterval=${SLURM_TEST_HEALTH_INTERVAL:-2}"
    echo "SlurmctldTimeout=30"
    echo "SlurmdTimeout=30"
    local i=1 node
    for node in "${slurm_nodes[@]}"; do
      echo "NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 Port=${ports[$i]} CPUs=2 State=UNKNOWN"
      i=$((i + 1))
    done
    echo "PartitionName=gpu Nodes=$(
      IFS=,
      echo "${slurm_nodes[*]}"
    ) Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
  } >"$slurm_dir/slurm.conf"
  export SLURM_CONF=$slurm_dir/slurm.conf
  slurmctld -f "$SLURM_CONF" || {
    echo "slurmctld did not start: $(tail -5 "$slurm_dir/log/slurmctld.log" 2>/dev/null)" >&2
    return 1
  }
  for node in "${slurm_nodes[@]}"; do
    mkdir -p "$slurm_dir/spool/$node"
    slurmd -f "$SLURM_CONF" -N "$node" || {
      echo "slurmd $node did not start: $(tail -5 "$slurm_dir/log/slurmd-$node.log" 2>/dev/null)" >&2
      return 1
    }
  done
  # Up when slurmctld answers and every node has registered (not "*", not responding).
  local waited=0
  until [ "$(sinfo -h -o '%t' 2>/dev/null | grep -cv '\*')" -ge 1 ] &&
    ! sinfo -h -N -o '%t' 2>/dev/null | grep -q '\*\|unk'; do
    sleep 0.5
    waited=$((waited + 1))
    if [ "$waited" -ge 60 ]; then
      echo "the nodes did not register within 30 s: $(sinfo -N 2>&1)" >&2
      tail -5 "$slurm_dir"/log/*.log >&2
      return 1
    fi
  done
}

# stop_pid_file FILE: TERM the daemon named there and wait up to 10 s for it to go.
stop_pid_file() {
  [ -s "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || return 0
  local i
  for i in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  echo "pid $pid ($1) did not stop on TERM: killed" >&2
  kill -9 "$pid" 2>/dev/null
  return 1
}

slurm_stop() {
  [ -n "$slurm_dir" ] || return 0
  local ok=0 node
  for node in "${slurm_nodes[@]}"; do
    stop_pid_file "$slurm_dir/slurmd-$node.pid" || ok=1
  done
  stop_pid_file "$slurm_dir/slurmctld.pid" || ok=1
  stop_pid_file "$slurm_dir/munge/munged.pid" || ok=1
  # Any process still holding this cluster's folder (a job step, a health check) is a leak.
  local left
  left=$(pgrep -f -- "$slurm_dir" || true)
  if [ -n "$left" ]; then
    echo "left running after the cluster stopped: $(ps -o pid=,args= -p "${left//$'\n'/,}")" >&2
    pkill -9 -f -- "$slurm_dir" || true
    ok=1
  fi
  return "$ok"
}

slurm_node_state() { scontrol show node "$1" 2>/dev/null | sed -n 's/^ *State=\([^ ]*\).*/\1/p'; }

slurm_wait_state() {
  local node=$1 regex=$2 limit=$3 start=$SECONDS
  until slurm_node_state "$node" | grep -Eq -- "$regex"; do
    [ $((SECONDS - start)) -lt "$limit" ] || return 1
    sleep 0.25
  done
}

slurm_node_reason() {
  scontrol show node "$1" 2>/dev/null | sed -n 's/^ *Reason=\(.*\) \[[^]]*\]$/\1/p; t; s/^ *Reason=//p'
}
