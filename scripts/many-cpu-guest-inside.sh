#!/bin/bash
# Runs inside the guest of scripts/many-cpu-guest.sh (as root, chrooted into the host's root,
# shared read-only; $SM_REPO is this repository, $SM_OUT a writable directory): the topology
# check program (tests/TopologyCheck, built on the host) under each confinement, and the memory
# mode of perf/Scaling at the library's own partition count. Prints every figure; exits non-zero
# when any check failed. $SM_GUEST names the guest: four-sockets (16 CPUs, 4 sockets, 4 NUMA
# nodes) or possible-64 (64 possible CPUs, 4 online).
set -uo pipefail
cd "$SM_REPO"
CHECK=(dotnet tests/TopologyCheck/bin/Release/net10.0/ScalableMetrics.TopologyCheck.dll)
SCALING=(dotnet perf/Scaling/bin/Release/net10.0/ScalableMetrics.Scaling.dll)
failed=()

step() {
  local name=$1; shift
  echo "---- $name: $*"
  local started=$SECONDS
  "$@" 2>&1 | tee "$SM_OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "---- $name: exit $rc, $((SECONDS - started)) s (guest clock)"
  ((rc == 0)) || failed+=("$name")
  return $rc
}

# Runs a command in a new cgroup v2 child of the root with cpuset.cpus = $1.
in_cpuset() {
  local cpus=$1; shift
  local group=/sys/fs/cgroup/topology-check-$cpus
  grep -qw cpuset /sys/fs/cgroup/cgroup.subtree_control || echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
  mkdir -p "$group" && echo "$cpus" > "$group/cpuset.cpus" || return 1
  echo "cgroup $group: cpuset.cpus.effective $(cat "$group/cpuset.cpus.effective")"
  sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$group" "$@"
}

echo "guest $SM_GUEST: kernel $(uname -r); possible $(cat /sys/devices/system/cpu/possible), online $(cat /sys/devices/system/cpu/online)"
lscpu | grep -E '^(CPU\(s\)|On-line|Off-line|Socket|Core|Thread|NUMA node)' || true

case $SM_GUEST in
  four-sockets)
    # The whole guest: 16 processors from 0, so cpu_id is the region; 16 writers with a scraper,
    # every write path and kind, CPUs 12-15 taken offline and back during the per-processor runs.
    step whole-guest "${CHECK[@]}" --expect-partitions 16 --expect-field cpu_id --threads 16 --adds 10000 --cycle-cpus 12-15
    partitions=$(sed -n 's/^partitions=//p' "$SM_OUT/whole-guest.log")
    # The memory mode at the library's own partition count (the figures are the guest's, not speed).
    step memory-mode "${SCALING[@]}" memory --partitions "${partitions:-16}" --series 1000 --instrument counter,histogram --mode adaptive,per-partition
    # One socket by a cgroup v2 cpuset: mm_cid by default, cpu_id through the map when asked.
    step cpuset-socket2-mm_cid in_cpuset 8-11 "${CHECK[@]}" --expect-partitions 4 --expect-field mm_cid --threads 16 --adds 2000
    step cpuset-socket2-cpu_id in_cpuset 8-11 "${CHECK[@]}" --prefer-cpu-id --expect-partitions 4 --expect-field cpu_id --threads 16 --adds 2000
    # One socket by taskset, and the first socket (processors from 0: cpu_id without a map).
    step taskset-socket1-cpu_id taskset -c 4-7 "${CHECK[@]}" --prefer-cpu-id --expect-partitions 4 --expect-field cpu_id
    step taskset-socket0 taskset -c 0-3 "${CHECK[@]}" --expect-partitions 4 --expect-field cpu_id
    # Started while socket 1 was offline (12 processors, not from 0): its processors come back,
    # their adds must show in the overflow count, on either id field.
    for field in mm_cid cpu_id; do
      prefer=(); [[ $field == cpu_id ]] && prefer=(--prefer-cpu-id)
      for cpu in 4 5 6 7; do echo 0 > /sys/devices/system/cpu/cpu$cpu/online; done
      step "late-online-$field" "${CHECK[@]}" "${prefer[@]}" --expect-partitions 12 --expect-field $field --adds 5000 --online-late 4-7
      for cpu in 4 5 6 7; do echo 1 > /sys/devices/system/cpu/cpu$cpu/online 2>/dev/null; done
    done
    ;;
  possible-64)
    # 64 possible processors, 4 online: 4 partitions, not 64.
    step possible-far-past-online "${CHECK[@]}" --expect-partitions 4 --expect-field cpu_id --threads 16 --adds 5000
    ;;
  *)
    echo "unknown guest '$SM_GUEST'"; exit 2 ;;
esac

if ((${#failed[@]} > 0)); then
  echo "topology check FAILED in guest $SM_GUEST: ${failed[*]}"
  exit 1
fi
echo "topology check passed in guest $SM_GUEST"
