#!/bin/sh
# build-guest.sh [ARCH...]: build the guest's initramfs for each
# architecture (default: arm64, and every other one a cell of GUEST_LISTS
# boots), build/guest/ARCH/initramfs.cpio: Debian's busybox-static, the
# kselftest install tree with the collections the cells of that
# architecture name, and the harness' own guest programs (tests/guest/).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The cells of every list, as "ARCH TARGET...": the kselftest targets
# each names (cells.sh's tests_parse), of the cells this base boots
# (cell_on_base) on the architectures it boots; a kernel 'base/NAME' is
# the variant NAME built from the base.
cells() {
	for f in $GUEST_LISTS; do
		data_lines "$f"
	done | while read -r line; do
		cell_load "$line"
		cell_on_base "$BASE" || continue
		a=$(variant_arch "${cell_kernel#base/}")
		case " $BASE_ARCHES " in
		*" $a "*) echo "$a $t_targets" ;;
		esac
	done
}

# deb PACKAGE ARCH: print the path of Debian's PACKAGE for ARCH
# (Debian's name: arm64, amd64), downloaded once into the cache through a
# private apt configuration: per-call architecture options, the host's
# dpkg is not made multiarch.
# newest_deb DIR PACKAGE ARCH: the newest .deb of PACKAGE for ARCH in DIR.
newest_deb() {
	find "$1" -maxdepth 1 -name "${2}_*_$3.deb" 2>/dev/null | sort -V | tail -n 1
}
deb() {
	d_pkg=$1 d_arch=$2
	debs=$CACHE/debs
	f=$(newest_deb "$debs" "$d_pkg" "$d_arch")
	if [ -z "$f" ]; then
		mkdir -p "$debs"
		set -- "$CACHE/apt-$d_arch" \
			"deb [arch=$d_arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR bookworm main" \
			apt-get -o APT::Architecture="$d_arch" \
			-o APT::Architectures::="$d_arch"
		run_logged "$LOGS/apt-$d_arch.log" apt_private "$@" update >&2
		(cd "$debs" && apt_private "$@" download "$d_pkg:$d_arch") \
			>>"$LOGS/apt-$d_arch.log" 2>&1 ||
			die "downloading $d_pkg:$d_arch failed: see build/logs/apt-$d_arch.log"
		f=$(newest_deb "$debs" "$d_pkg" "$d_arch")
	fi
	echo "$f"
}

build() {
	arch=$1
	guest=$BUILD/guest/$arch
	root=$guest/root
	case $arch in
	arm64) cross=$CROSS_COMPILE ksft_arch=arm64 ;;
	x86_64) cross='' ksft_arch=x86 ;;
	*) die "no guest for architecture '$arch'" ;;
	esac

	stage "guest $arch ($BASE): busybox, kselftests, initramfs"
	# The cells read only the CPIO archives, which a build with the same
	# inputs may have left in the cache.
	key=$(guest_key "$arch")
	if [ -n "$key" ] && [ -f "$GUESTS/$key.tar" ]; then
		mkdir -p "$guest"
		tar -xf "$GUESTS/$key.tar" -C "$guest"
		touch "$GUESTS/$key.tar"
		msg "    the archives of a build with the same inputs: $(tar -tf "$GUESTS/$key.tar" | paste -sd' ' -)"
		stage_end
		return 0
	fi
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" \
		"$root/dev" "$root/proc" "$root/sys" "$root/tmp" \
		"$root/kselftest"
	deb_arch=$arch
	[ "$arch" != x86_64 ] || deb_arch=amd64
	bb=$(deb busybox-static "$deb_arch")
	msg "    ${bb##*/}"
	dpkg-deb --fsys-tarfile "$bb" | tar -xOf - ./bin/busybox >"$root/bin/busybox"
	chmod 755 "$root/bin/busybox"
	# exec's kselftests run a '#!/bin/bash' script; busybox has no bash
	# applet, and runs an applet by the name it was called with.
	printf '#!/bin/sh\nexec /bin/sh "$@"\n' >"$root/bin/bash"
	chmod 755 "$root/bin/bash"
	# libcap, which clone3 links, for the guest's architecture: the
	# static library of Debian's libcap-dev, unpacked.
	sysroot=$guest/sysroot
	rm -rf "$sysroot"
	mkdir -p "$sysroot"
	dpkg-deb -x "$(deb libcap-dev "$deb_arch")" "$sysroot"
	rm -f "$sysroot"/usr/lib/*/libcap.so
	multiarch=$(ls "$sysroot/usr/lib")

	# The kselftest targets this architecture's cells name: "arm64/abi"
	# is the arm64 target with ARM64_SUBTARGETS=abi. The KVM series' own
	# selftest ("kvm") and upstream's KVM selftests ("kvm/TEST") are
	# built below.
	targets=
	subtargets=
	kvm_tests=
	for t in $(cells | awk -v a="$arch" '$1 == a { $1 = ""; print }'); do
		case $t in
		kvm/*) kvm_tests="$kvm_tests ${t#kvm/}" ;;
		*/*)
			targets="$targets ${t%%/*}"
			subtargets="$subtargets ${t#*/}"
			;;
		*) targets="$targets $t" ;;
		esac
	done
	# shellcheck disable=SC2086 # one word a target
	targets=$(printf '%s\n' $targets | sort -u | paste -sd' ' -)
	# shellcheck disable=SC2086
	subtargets=$(printf '%s\n' $subtargets | sort -u | paste -sd' ' -)
	# shellcheck disable=SC2086
	kvm_tests=$(printf '%s\n' $kvm_tests | sort -u | paste -sd' ' -)
	msg "    kselftest targets: $targets${subtargets:+ (subtargets: $subtargets)}"

	hdr=$guest/headers
	kst=$guest/kselftest-build
	rm -rf "$kst"
	if [ -n "$targets" ]; then
		# shellcheck disable=SC2016 # the script's own arguments
		run_logged "$LOGS/kselftest-$arch.log" sh -c '
			make -C "$1" O="$2" ARCH="$9" INSTALL_HDR_PATH="$2" -j"$4" \
				headers_install &&
			make -C "$1/tools/testing/selftests" ARCH="$9" \
				CROSS_COMPILE="$3" CC="ccache ${3}gcc" -j"$4" \
				O="$5" KHDR_INCLUDES="-isystem $2/include" \
				USERCFLAGS="-isystem ${10}/usr/include" \
				USERLDFLAGS="-L${10}/usr/lib/${11}" TARGETS="$6" \
				ARM64_SUBTARGETS="$7" INSTALL_PATH="$8" install' sh \
			"$BUILD/linux" "$hdr" "$cross" "$JOBS" "$kst" "$targets" \
			"$subtargets" "$root/kselftest" "$ksft_arch" "$sysroot" "$multiarch" ||
			die "building the $arch kselftests failed"
		# The kselftest build goes on past a target that fails.
		have=$(cut -d: -f1 "$root/kselftest/kselftest-list.txt" | sort -u)
		for t in $targets; do
			echo "$have" | grep -qx "$t" ||
				die "kselftest target '$t' did not build for $arch: see build/logs/kselftest-$arch.log"
		done
		msg "    collections: $(printf '%s\n' "$have" | paste -sd' ' -)"
	fi
	# The first part of the series (lib.sh, PART1_TREE) has a mem_model
	# kselftest of its own, which its cells run: built from that tree,
	# with the same headers, into an archive that boot-cell.sh unpacks
	# over the series' kselftest.
	if [ "$arch" = arm64 ] && [ "$BASE" = "$FIRST_BASE" ] &&
		[ "$(series_parts | wc -l)" -gt 1 ]; then
		sync_part1_tree
		core=$guest/core-root
		rm -rf "$core" "$guest/core-kselftest-build"
		run_logged "$LOGS/kselftest-core.log" make -C "$PART1_TREE/tools/testing/selftests" \
			ARCH="$ksft_arch" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" -j"$JOBS" \
			O="$guest/core-kselftest-build" KHDR_INCLUDES="-isystem $hdr/include" \
			TARGETS=mem_model INSTALL_PATH="$core/kselftest" install ||
			die "building the first part's mem_model kselftest failed: see build/logs/kselftest-core.log"
		[ -d "$core/kselftest/mem_model" ] ||
			die "the first part's mem_model kselftest installed nothing"
		cpio_tree "$core" kselftest/mem_model >"$guest/core-kselftest.cpio"
		msg "    the first part's own mem_model kselftest: ${guest#"$TOP"/}/core-kselftest.cpio"
	fi

	# The oracle test and the benchmark read the emulated Apple CPU's
	# registers: arm64 only. The client protocols (fex-protocol,
	# rosetta-protocol) read them where they exist, and run everywhere.
	# The VMM is built against the tree's UAPI headers.
	progs="init mem-model-probe fex-protocol rosetta-protocol"
	[ "$arch" != arm64 ] || progs="$progs mem-model-oracle mem-model-bench mem-model-vm-bench mem-model-kexec mem-model-vmm"
	for p in $progs; do
		"${cross}gcc" -static -O2 -Wall -Wextra -Werror -pthread \
			-isystem "$hdr/include" \
			-o "$guest/$p" "$TOP/tests/guest/$p.c" ||
			die "building tests/guest/$p.c for $arch failed"
		case $p in
		init) cp "$guest/init" "$root/init" ;;
		*) cp "$guest/$p" "$root/usr/bin/" ;;
		esac
	done
	# A TSO VM's saved state, for the VMM to restore on a host that
	# cannot give TSO (tests/vm.tsv).
	if [ "$arch" = arm64 ]; then
		mkdir -p "$root/usr/share/mem-model"
		cp "$TOP/tests/guest/tso-vm.state" "$root/usr/share/mem-model/"
	fi

	# The KVM series (kvm/) adds a KVM selftest, arm64/mem_model, which
	# the VM cells' hosts run as the collection "kvm": built from the KVM
	# tree, with that tree's UAPI headers, with the ones of upstream's
	# KVM selftests that the cells name ("kvm/TEST": the regression
	# guard's, which boots them on a host with and without the KVM
	# series), and no other.
	if [ "$arch" = arm64 ] && [ "$BASE" = "$FIRST_BASE" ] &&
		[ -f "$KVM_TREE/tools/testing/selftests/kvm/arm64/mem_model.c" ]; then
		kb=$guest/kvm-kselftest-build
		rm -rf "$kb"
		# shellcheck disable=SC2016 # the script's own arguments
		run_logged "$LOGS/kselftest-kvm.log" sh -c '
			make -C "$1" O="$2/headers-build" ARCH=arm64 \
				INSTALL_HDR_PATH="$2/headers" -j"$4" headers_install &&
			make -C "$1/tools/testing/selftests/kvm" ARCH=arm64 \
				CROSS_COMPILE="$3" CC="ccache ${3}gcc" -j"$4" \
				OUTPUT="$2" KHDR_INCLUDES="-isystem $2/headers/include" \
				TEST_GEN_PROGS_arm64="$5"' sh \
			"$KVM_TREE" "$kb" "$cross" "$JOBS" "arm64/mem_model $kvm_tests" ||
			die "building the KVM selftests arm64/mem_model $kvm_tests failed: see build/logs/kselftest-kvm.log"
		mkdir -p "$root/kselftest/kvm"
		cp "$kb/arm64/mem_model" "$root/kselftest/kvm/mem_model"
		echo kvm:mem_model >>"$root/kselftest/kselftest-list.txt"
		msg "    the KVM series' selftest: kselftest/kvm/mem_model (collection kvm)"
		# Upstream's at their own path, kvm:arm64/hypercalls in
		# kselftest/kvm/arm64/, without their debug information: a
		# third of the size, in the initramfs every cell boots.
		for t in $kvm_tests; do
			mkdir -p "$(dirname "$root/kselftest/kvm/$t")"
			"${cross}strip" --strip-debug -o "$root/kselftest/kvm/$t" "$kb/$t"
			echo "kvm:$t" >>"$root/kselftest/kselftest-list.txt"
		done
		[ -z "$kvm_tests" ] ||
			msg "    upstream's KVM selftests (collection kvm): $kvm_tests"
	elif [ -n "$kvm_tests" ]; then
		die "the cells name upstream's KVM selftests ($kvm_tests), built from the KVM series' tree, ${KVM_TREE#"$TOP"/}, which has no arm64/mem_model: run 'make tree'"
	fi
	# The kselftests are linked as upstream builds them, most of them
	# dynamically: the guest gets their program interpreter and the
	# libraries they need, from the toolchain's libc. The interpreter is
	# copied once, to the path the programs ask for; libc's NEEDED entry
	# for it is that same, already loaded, object.
	mkdir -p "$root/lib"
	copied=
	while :; do
		need=$(find "$root" -type f -exec sh -c '
			for f; do
				readelf -ld "$f" 2>/dev/null | sed -n \
					-e "s/.*program interpreter: \(.*\)]/\1/p" \
					-e "s/.*(NEEDED).*\[\(.*\)]/\1/p"
			done' sh {} + | sort -u)
		new=
		for l in $need; do
			case " $copied $new " in *" $l "* | *"/$l "*) continue ;; esac
			new="$new $l"
		done
		[ -n "$new" ] || break
		for l in $new; do
			src=$("${cross}gcc" -print-file-name="${l##*/}")
			[ -f "$src" ] || die "no ${l##*/} for the $arch guest"
			case $l in
			/*) dst=$root$l ;;
			*) dst=$root/lib/$l ;;
			esac
			mkdir -p "$(dirname "$dst")"
			cp -L "$src" "$dst"
			copied="$copied $l"
		done
	done
	[ -z "$copied" ] || msg "    libraries:$copied"

	initrd=$(guest_initramfs "$arch")
	cpio_tree "$root" . >"$initrd"
	msg "    $(du -k "$initrd" | cut -f1) KiB: ${initrd#"$TOP"/}"

	# The kexec cells' guest: init, busybox and the harness' programs,
	# small enough to load twice (harness/boot-cell.sh adds the kernel
	# to kexec into). The VM cells' nested guest: the same, with the
	# mem_model kselftest collection and the libraries it needs.
	if [ "$arch" = arm64 ]; then
		cpio_tree "$root" . -path ./kselftest -prune -o \
			-path ./lib -prune -o -print >"$guest/kexec.cpio"
		msg "    $(du -k "$guest/kexec.cpio" | cut -f1) KiB: ${guest#"$TOP"/}/kexec.cpio"
		cpio_tree "$root" . \( -path './kselftest/*' ! -path './kselftest/kselftest*' \
			! -path './kselftest/run_kselftest.sh' ! -path './kselftest/mem_model*' \) \
			-prune -o -print >"$guest/vm.cpio"
		msg "    $(du -k "$guest/vm.cpio" | cut -f1) KiB: ${guest#"$TOP"/}/vm.cpio"
	fi
	if [ -n "$key" ]; then
		mkdir -p "$GUESTS"
		(cd "$guest" && find initramfs.cpio kexec.cpio vm.cpio core-kselftest.cpio \
			2>/dev/null | tar -cf "$GUESTS/$key.tar.tmp" -T -)
		mv "$GUESTS/$key.tar.tmp" "$GUESTS/$key.tar"
		find "$GUESTS" -type f -mtime +14 -delete
	fi
	stage_end
}

# guest_key ARCH: what the guest of ARCH is built from: the tree (with
# no change that is not committed; else empty: no cache), this script
# and lib.sh, every file of tests/guest (committed or not), the cells of
# GUEST_LISTS, the Debian packages in the cache, the compilers.
guest_key() {
	[ -z "$(git -C "$BUILD/linux" status --porcelain --untracked-files=no)" ] || return 0
	{
		echo "$1 $BASE $BASE_ARCHES"
		git -C "$BUILD/linux" rev-parse 'HEAD^{tree}'
		[ "$(series_parts | wc -l)" -lt 2 ] ||
			git -C "$BUILD/linux" rev-parse -q --verify \
				"$(part_branch "$(series_parts | head -n 1)")^{tree}" || true
		[ "$BASE" != "$FIRST_BASE" ] || [ ! -d "$KVM_TREE" ] ||
			git -C "$KVM_TREE" rev-parse 'HEAD^{tree}'
		cat "$TOP/harness/build-guest.sh" "$TOP/harness/lib.sh"
		(cd "$TOP" && find tests/guest -type f | LC_ALL=C sort | xargs sha256sum)
		cells
		ls "$CACHE/debs"
		"${CROSS_COMPILE}gcc" --version | head -n 1
		gcc --version | head -n 1
	} | sha256sum | cut -c1-32
}

arches=${*:-$( (echo arm64; cells | awk '{ print $1 }') | sort -u)}
for a in $arches; do
	build "$a"
done
