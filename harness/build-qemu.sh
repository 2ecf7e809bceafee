#!/bin/sh
# build-qemu.sh: build build/qemu/qemu-system-aarch64, Debian's qemu source
# package (the version in qemu/source.version) with qemu/apple-tso.patch.
# The source comes through a private apt configuration; /etc/apt is not
# touched. The binary is cached, keyed by the patch, the source version and
# this script; a new key builds from cold.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

want=$(cat "$TOP/qemu/source.version")
patch=$TOP/qemu/apple-tso.patch
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN_SECURITY=${DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
out=$BUILD/qemu
mkdir -p "$out"

key=$(cat "$patch" "$TOP/qemu/source.version" "$0" | sha256sum | cut -c1-16)
cached=$CACHE/qemu/$key/qemu-system-aarch64
if [ -x "$cached" ]; then
	ln -sf "$cached" "$out/qemu-system-aarch64"
	msg "    qemu: cached build $key"
	exit 0
fi

stage "qemu: Debian's qemu $want with qemu/apple-tso.patch"
kr=/usr/share/keyrings/debian-archive-keyring.gpg
sources="deb-src [signed-by=$kr] $DEBIAN_MIRROR bookworm main
deb-src [signed-by=$kr] $DEBIAN_MIRROR bookworm-updates main
deb-src [signed-by=$kr] $DEBIAN_SECURITY bookworm-security main"
# src_apt COMMAND ARGS...: apt-get or apt-cache on those sources alone.
src_apt() {
	apt_private "$CACHE/apt-src" "$sources" "$@"
}

# The source package: the pinned version, or, once the archive has
# replaced it, the newest one (the patch touches no file Debian patches).
ver=$want
srcdir=$CACHE/qemu-src/$ver
if ! ls "$srcdir"/*.dsc >/dev/null 2>&1; then
	run_logged "$LOGS/apt-src.log" src_apt apt-get update
	have=$(src_apt apt-cache showsrc qemu | sed -n 's/^Version: //p' | sort -V)
	[ -n "$have" ] || die "no qemu source package in the archive: see build/logs/apt-src.log"
	if ! echo "$have" | grep -qxF "$want"; then
		ver=$(echo "$have" | tail -n 1)
		msg "    note: qemu $want is no longer in the archive; using $ver"
		srcdir=$CACHE/qemu-src/$ver
	fi
	mkdir -p "$srcdir"
	(cd "$srcdir" && src_apt apt-get source --download-only "qemu=$ver") \
		>>"$LOGS/apt-src.log" 2>&1 ||
		die "downloading the qemu $ver source failed: see build/logs/apt-src.log"
fi

src=$out/src
obj=$out/obj
rm -rf "$src" "$obj"
dsc=$(find "$srcdir" -maxdepth 1 -name '*.dsc' | sort | head -n 1)
dpkg-source -x "$dsc" "$src" \
	>"$LOGS/qemu-source.log" 2>&1 ||
	die "unpacking the qemu source failed: see build/logs/qemu-source.log"
patch -d "$src" -p1 --forward <"$patch" >>"$LOGS/qemu-source.log" 2>&1 ||
	die "qemu/apple-tso.patch does not apply to qemu $ver: see build/logs/qemu-source.log"

# Only the aarch64 system emulator, with the 'virt' board and nothing
# optional: no tools, no documentation, no user-mode emulation, no
# debugging information (a fifth of the compile time; nothing reads it).
mkdir -p "$obj"
# shellcheck disable=SC2016 # the script's own arguments
run_logged "$LOGS/qemu-build.log" sh -c '
	cd "$1" &&
	"$2/configure" --target-list=aarch64-softmmu \
		--with-devices-aarch64=minimal --without-default-features \
		--enable-tcg --enable-fdt=system --disable-docs --disable-tools \
		--disable-debug-info \
		--disable-user --disable-werror --meson=meson &&
	ninja -j"$3" qemu-system-aarch64' sh "$obj" "$src" "$JOBS" ||
	die "building qemu failed"

"$obj/qemu-system-aarch64" -cpu max,x-apple-tso=on -M virt -S \
	-display none -monitor none -serial none -nodefaults </dev/null >/dev/null 2>&1 &
qpid=$!
sleep 2
kill "$qpid" 2>/dev/null ||
	die "the new qemu-system-aarch64 does not start with x-apple-tso=on"
wait "$qpid" 2>/dev/null || true

mkdir -p "$CACHE/qemu/$key.tmp"
cp "$obj/qemu-system-aarch64" "$CACHE/qemu/$key.tmp/"
rm -rf "$CACHE/qemu/$key"
mv "$CACHE/qemu/$key.tmp" "$CACHE/qemu/$key"
ln -sf "$cached" "$out/qemu-system-aarch64"
rm -rf "$src" "$obj"
msg "    qemu $ver + apple-tso.patch: cached as $key"
stage_end
