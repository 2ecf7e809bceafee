#!/bin/sh
# Build the guest's initramfs, build/guest/initramfs.cpio: Debian's arm64
# busybox-static, the kselftest install tree with the collections the
# matrix names, and the harness' own guest programs (tests/guest/).
. "$(dirname "$0")/lib.sh"

src=$BUILD/linux
guest=$BUILD/guest
root=$guest/root
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

stage "guest: busybox, kselftests, initramfs"
rm -rf "$root"
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" \
	"$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/kselftest"

# Debian's arm64 busybox-static, through a private apt configuration:
# per-call architecture options, the host's dpkg is not made multiarch.
debs=$CACHE/debs
bb=$(ls "$debs"/busybox-static_*_arm64.deb 2>/dev/null | tail -n 1 || true)
if [ -z "$bb" ]; then
	apt=$CACHE/apt-arm64
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$debs"
	: >"$apt/status"
	echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR bookworm main" \
		>"$apt/sources.list"
	set -- -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::State::status="$apt/status" \
		-o Dir::Cache="$apt" -o Dir::Cache::Archives="$apt/archives" \
		-o APT::Architecture=arm64 -o APT::Architectures::=arm64
	run_logged "$LOGS/apt-arm64.log" apt-get "$@" update
	(cd "$debs" && apt-get "$@" download busybox-static:arm64) \
		>>"$LOGS/apt-arm64.log" 2>&1 ||
		die "downloading busybox-static:arm64 failed: see build/logs/apt-arm64.log"
	bb=$(ls "$debs"/busybox-static_*_arm64.deb | tail -n 1)
fi
msg "    ${bb##*/}"
dpkg-deb --fsys-tarfile "$bb" | tar -xOf - ./bin/busybox >"$root/bin/busybox"
chmod 755 "$root/bin/busybox"

# The kselftest collections the matrix names. "arm64/abi" is the arm64
# target with ARM64_SUBTARGETS=abi; "oracle" is the harness' own test.
targets=
subtargets=
for t in $(matrix_lines | awk '{ print $6 }' | tr , ' '); do
	case $t in
	oracle | oracle:*) ;;
	*/*)
		targets="$targets ${t%%/*}"
		subtargets="$subtargets ${t#*/}"
		;;
	*) targets="$targets $t" ;;
	esac
done
targets=$(echo $targets | tr ' ' '\n' | sort -u | paste -sd' ' -)
subtargets=$(echo $subtargets | tr ' ' '\n' | sort -u | paste -sd' ' -)
msg "    kselftest targets: $targets${subtargets:+ (subtargets: $subtargets)}"

hdr=$guest/headers
kst=$guest/kselftest-build
rm -rf "$kst"
run_logged "$LOGS/kselftest.log" sh -c '
	make -C "$1" O="$2" ARCH=arm64 INSTALL_HDR_PATH="$2" headers_install &&
	make -C "$1/tools/testing/selftests" ARCH=arm64 \
		CROSS_COMPILE="$3" CC="ccache ${3}gcc" -j"$4" \
		O="$5" KHDR_INCLUDES="-isystem $2/include" \
		USERLDFLAGS=-static TARGETS="$6" ARM64_SUBTARGETS="$7" \
		INSTALL_PATH="$8" install' sh \
	"$src" "$hdr" "$CROSS_COMPILE" "$JOBS" "$kst" "$targets" \
	"$subtargets" "$root/kselftest" ||
	die "building the kselftests failed"
msg "    collections: $(cut -d: -f1 "$root/kselftest/kselftest-list.txt" | sort -u | tr '\n' ' ')"

for p in init mem-model-probe mem-model-oracle mem-model-bench; do
	"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -Werror -pthread \
		-o "$guest/$p" "$TOP/tests/guest/$p.c" ||
		die "building tests/guest/$p.c failed"
done
cp "$guest/init" "$root/init"
cp "$guest/mem-model-probe" "$guest/mem-model-oracle" \
	"$guest/mem-model-bench" "$root/usr/bin/"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet) \
	>"$guest/initramfs.cpio"
msg "    $(du -k "$guest/initramfs.cpio" | cut -f1) KiB: build/guest/initramfs.cpio"
stage_end
