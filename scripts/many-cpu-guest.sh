#!/usr/bin/env bash
# The topology check: a 4-socket, 16-CPU Linux guest emulated on the CI machine, run from the
# repository root (and by .ci/run):
#   bash scripts/many-cpu-guest.sh
# Boots Debian's 6.12 kernel (rseq, mm_cid) under QEMU's TCG, single-threaded (KVM on these
# machines cannot boot a stock kernel; /work/shared/many-cpu-guest.md has what was tried), with
# the host's root shared read-only over virtio-9p, so that the build made here runs inside
# unchanged. Inside, scripts/many-cpu-guest-inside.sh runs the check program (tests/TopologyCheck)
# under the whole guest, a cgroup v2 cpuset of one socket, taskset, CPUs taken offline and back,
# and the memory mode of perf/Scaling at the library's own partition count; every figure goes to
# this script's output, and any failed check fails it. A second guest has far more possible
# CPUs than online ones (64 vCPUs, 4 brought up at boot: the kernel argument maxcpus=4), as VMs
# with hot-pluggable CPUs do. (QEMU's -smp N,maxcpus=M does not do it here: its ACPI tables mark
# the absent CPUs in a way 6.12 skips; possible_cpus= only lowers the count.)
#
# Installs what it uses (qemu-system-x86, busybox-static, zstd, xz-utils, cpio) with apt-get;
# downloads ONE kernel package (apt-get download, the newest linux-image-6.12.*+deb12-amd64-unsigned)
# into $CACHE (git-ignored), once; takes its uncompressed vmlinux (QEMU boots the ELF through its
# PVH note, skipping the decompressor) and the 9p modules, and builds a busybox initramfs.
# Emulation gives correctness evidence only (partition counts, exactness, overflow counts), never
# speed. QEMU runs under nice, as the CI machine's cores are shared.
#
# Environment: CACHE (default .cache/many-cpu-guest), GUEST_TIMEOUT_SECONDS (each boot, default 420),
# SKIP_BUILD=1 (use the Release builds already there), GUESTS (default "four-sockets possible-64").
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd -P)

CACHE=${CACHE:-$REPO/.cache/many-cpu-guest}
GUEST_TIMEOUT_SECONDS=${GUEST_TIMEOUT_SECONDS:-420}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd -P)

case "$REPO$CACHE" in
  *[[:space:]]*) echo "error: the repository and cache paths must have no white space (they go on the kernel's command line)" >&2; exit 2 ;;
esac

# -- tools --------------------------------------------------------------------------------------
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
[[ -x /bin/busybox ]] && ! ldd /bin/busybox >/dev/null 2>&1 || missing+=(busybox-static)
command -v zstd >/dev/null || missing+=(zstd)
command -v xz >/dev/null || missing+=(xz-utils)
command -v cpio >/dev/null || missing+=(cpio)
if ((${#missing[@]} > 0)); then
  bash scripts/install-packages.sh "${missing[@]}"
fi

# -- the kernel: one package, downloaded once ----------------------------------------------------
pick_kernel_package() {
  apt-cache pkgnames linux-image-6.12. | grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' | sort -V | tail -n 1
}
package=$(pick_kernel_package || true)
if [[ -z $package ]]; then
  # The package lists are not there yet (a fresh machine): read them once.
  sudo=(); [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  package=$(pick_kernel_package)
fi
release=${package#linux-image-}
release=${release%-unsigned}
KERNEL_DIR=$CACHE/kernel-$release
if [[ ! -s $KERNEL_DIR/vmlinux ]]; then
  echo "== kernel: downloading $package (once, into $CACHE)"
  rm -rf "$KERNEL_DIR.partial" && mkdir -p "$KERNEL_DIR.partial/deb"
  # apt's sandbox user cannot write into a root-owned cache: the warning it prints is harmless.
  (cd "$KERNEL_DIR.partial/deb" && apt-get download -q "$package" 2>&1 | grep -v 'unsandboxed' || true)
  deb=$(ls "$KERNEL_DIR.partial"/deb/*.deb)
  dpkg-deb -x "$deb" "$KERNEL_DIR.partial/x"
  # The bzImage holds a zstd stream after its decompressor: cut it out from its magic number
  # (zstd exits 1 on the trailing data, which is expected).
  bz=$KERNEL_DIR.partial/x/boot/vmlinuz-$release
  offset=$(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$bz" | head -n 1 | cut -d: -f1)
  tail -c +$((offset + 1)) "$bz" | zstd -dcq > "$KERNEL_DIR.partial/vmlinux" 2>/dev/null || true
  [[ $(head -c 4 "$KERNEL_DIR.partial/vmlinux" | od -An -tx1 | tr -d ' ') == 7f454c46 ]] || { echo "error: no ELF kernel in $bz" >&2; exit 1; }
  mkdir -p "$KERNEL_DIR.partial/modules"
  for module in fs/netfs/netfs net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p; do
    xz -dc "$KERNEL_DIR.partial/x/lib/modules/$release/kernel/$module.ko.xz" > "$KERNEL_DIR.partial/modules/$(basename "$module").ko"
  done
  rm -rf "$KERNEL_DIR.partial/x" "$KERNEL_DIR.partial/deb"
  rm -rf "$KERNEL_DIR" && mv "$KERNEL_DIR.partial" "$KERNEL_DIR"
fi

# -- the initramfs: busybox, the 9p modules, /init ----------------------------------------------
INITRAMFS=$CACHE/initramfs-$release.cpio.gz
root=$CACHE/initramfs.partial
rm -rf "$root" && mkdir -p "$root"/{bin,dev,proc,sys,newroot,modules}
cp /bin/busybox "$root/bin/busybox"
cp "$KERNEL_DIR"/modules/*.ko "$root/modules/"
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
# Mounts the host's root (read-only) and the results share (writable, over its own path), then
# runs the check in a clean environment, chrooted, and writes its exit code beside its output.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in netfs 9pnet 9pnet_virtio 9p; do insmod /modules/$m.ko || echo "init: insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /newroot || { echo "init: cannot mount the host root"; poweroff -f; }
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup
mount -t devtmpfs dev /newroot/dev
mount -t devpts devpts /newroot/dev/pts 2>/dev/null
# A tmpfs for HOME and TMPDIR under /dev, not over /tmp: the build the guest runs may itself be
# under the host's /tmp (a CI clone), which a tmpfs there would hide.
mkdir -p /newroot/dev/shm && mount -t tmpfs tmp /newroot/dev/shm && mkdir -p /newroot/dev/shm/home /newroot/dev/shm/tmp
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results "/newroot$SM_OUT" || { echo "init: cannot mount the results share"; poweroff -f; }
touch "/newroot$SM_OUT/started"
chroot /newroot /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/dev/shm/home TMPDIR=/dev/shm/tmp DOTNET_CLI_HOME=/dev/shm/home DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 \
  SM_REPO="$SM_REPO" SM_OUT="$SM_OUT" SM_GUEST="$SM_GUEST" \
  /bin/bash "$SM_REPO/scripts/many-cpu-guest-inside.sh"
echo $? > "/newroot$SM_OUT/rc"
sync
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$INITRAMFS"
rm -rf "$root"

# -- the build the guest runs ---------------------------------------------------------------------
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  echo "== build: tests/TopologyCheck and perf/Scaling (Release)"
  dotnet build tests/TopologyCheck -c Release -v q -nologo
  dotnet build perf/Scaling -c Release -v q -nologo
fi

# -- boot -----------------------------------------------------------------------------------------
# boot NAME SMP-AND-TOPOLOGY-ARGS... -- KERNEL-ARGS: one guest; its serial console is this
# script's output; fails unless the check inside wrote exit code 0.
boot() {
  local name=$1; shift
  local qemu_args=()
  while [[ $1 != -- ]]; do qemu_args+=("$1"); shift; done
  shift
  local out=$CACHE/out-$name
  local started=$SECONDS attempt
  for attempt in 1 2; do
    rm -rf "$out" && mkdir -p "$out"
    echo "== guest '$name': qemu ${qemu_args[*]}"
    nice -n 10 timeout "$GUEST_TIMEOUT_SECONDS" qemu-system-x86_64 \
      -accel tcg,thread=single -cpu max -machine q35 "${qemu_args[@]}" \
      -kernel "$KERNEL_DIR/vmlinux" -initrd "$INITRAMFS" \
      -append "console=ttyS0 rdinit=/init panic=-1 quiet no_timer_check SM_REPO=$REPO SM_OUT=$out SM_GUEST=$name $*" \
      -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
      -virtfs "local,path=$out,mount_tag=results,security_model=none,multidevs=remap" \
      -display none -monitor none -serial stdio -no-reboot </dev/null || true
    # An emulated boot can fail on a loaded machine (a timer check, a stall) before the check
    # starts: boot once more then. A check that ran is never retried.
    [[ -e $out/started ]] && break
    echo "== guest '$name': the check did not start (boot attempt $attempt)"
  done
  local rc
  rc=$(cat "$out/rc" 2>/dev/null || echo "none (the guest did not finish within ${GUEST_TIMEOUT_SECONDS} s)")
  echo "== guest '$name': check exit code $rc, $((SECONDS - started)) s of host time"
  [[ $rc == 0 ]]
}

numa=()
for node in 0 1 2 3; do
  numa+=(-object "memory-backend-ram,id=m$node,size=1024M" -numa "node,nodeid=$node,memdev=m$node" -numa "cpu,node-id=$node,socket-id=$node")
done

status=0
for guest in ${GUESTS:-four-sockets possible-64}; do
  case $guest in
    four-sockets) boot four-sockets -smp 16,sockets=4,cores=4,threads=1 -m 4096M "${numa[@]}" -- || status=1 ;;
    possible-64) boot possible-64 -smp 64,sockets=4,cores=16,threads=1 -m 2048M -- maxcpus=4 || status=1 ;;
    *) echo "error: unknown guest '$guest'" >&2; status=1 ;;
  esac
done
if ((status != 0)); then
  echo "error: the topology check failed (see the guests' output above)" >&2
fi
exit $status
