#!/bin/sh
# build-kernel.sh [--out DIR] [--image-only] [--skip-built] NAME [SRC]:
# build the kernel variant NAME of harness/kernels.tsv from SRC (default:
# the tree its 'tree' column names, lib.sh's variant_src) into DIR
# (default: variant_out, build/kernel/NAME for the series' tree), with
# ccache: arm64 cross-built (Image), x86_64 with the host compiler
# (bzImage). Prints the path of its image. A build from a tree without
# uncommitted changes is recorded under its inputs (build_key, lib.sh).
# --skip-built skips a build recorded before, and writes "reused" rather
# than "built" to DIR/.build-result. --image-only is for a caller that
# only boots the image, not the build directory: such a build's image is
# kept in the cache under the same key (IMAGES, lib.sh), and taken from
# there the next time rather than built ("cached").
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

out='' image_only='' skip_built=''
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--image-only) image_only=1; shift ;;
	--skip-built) skip_built=1; shift ;;
	-*) die "build-kernel.sh: unknown option $1" ;;
	*) break ;;
	esac
done
name=${1:?usage: build-kernel.sh [--out DIR] [--image-only] [--skip-built] NAME [SRC]}
src=${2:-$(variant_src "$name")}
out=${out:-$(variant_out "$name")}
line=$(sed -e 's/#.*//' "$TOP/harness/kernels.tsv" | awk -v n="$name" '$1 == n')
[ -n "$line" ] || die "no kernel variant '$name' in harness/kernels.tsv"
# shellcheck disable=SC2086
set -- $line
arch=$2
seed=$4
shift 4
frags=" $*"
if [ "$seed" != - ] && { [ "$seed" = "$name" ] ||
	! sed -e 's/#.*//' "$TOP/harness/kernels.tsv" | awk -v s="$seed" \
		'$1 == s { f = 1 } END { exit !f }'; }; then
	die "harness/kernels.tsv: variant $name: seed '$seed' is neither '-' nor another variant"
fi
image=$(arch_image "$arch")
target=${image##*/}
cross=
[ "$arch" != arm64 ] || cross=$CROSS_COMPILE
[ -f "$src/Makefile" ] || die "no kernel source in $src"

stage "kernel $name (${frags# })"
mkdir -p "$out"
key=$(build_key "$src" "$name")
if [ -n "$skip_built" ] && [ -n "$key" ] && [ -f "$BUILT_STAMPS/$key" ]; then
	msg "    built before with the same inputs: $(cat "$BUILT_STAMPS/$key")"
	echo reused >"$out/.build-result"
	stage_end
	exit 0
fi
if [ -n "$image_only" ] && [ -n "$key" ] && [ -f "$IMAGES/$key" ]; then
	mkdir -p "$(dirname "$out/$image")"
	cp "$IMAGES/$key" "$out/$image"
	touch "$IMAGES/$key"
	rm -f "$out/.build-inputs"
	echo cached >"$out/.build-result"
	msg "    the image of a build with the same inputs: $(cat "$BUILT_STAMPS/$key" 2>/dev/null || echo "$key")"
	stage_end
	exit 0
fi
# build/kernel/debug logs to kernel-debug.log, build/base/kernel/on to
# base-kernel-on.log.
log=$LOGS/$(echo "${out#"$BUILD"/}" | tr / -).log

# Start from the seed variant's build directory beside this one
# (harness/kernels.tsv) if its last build was of the same committed tree:
# only what the configs' difference reaches is compiled again.
inputs=$(kernel_inputs "$src" "$arch")
seed_out=$(dirname "$out")/$seed
if [ "$seed" != - ] && [ -n "$inputs" ] &&
	[ "$(cat "$seed_out/.build-inputs" 2>/dev/null)" = "$inputs" ] &&
	[ "$(cat "$out/.build-inputs" 2>/dev/null)" != "$inputs" ]; then
	msg "    from ${seed_out#"$TOP"/}, built from the same tree"
	# Into place only once whole: an interrupted copy leaves no build
	# directory that a later run would take for a finished one.
	rm -rf "$out" "$out.seed"
	cp -a "$seed_out" "$out.seed"
	rm -f "$out.seed/.build-inputs"
	mv "$out.seed" "$out"
fi
rm -f "$out/.build-inputs" "$out/.build-result"
kmake() {
	make -C "$src" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"
}

files=
for f in $frags; do
	files="$files $TOP/harness/configs/$f.config"
done
# Configuring takes about 20 s, and the build after it relinks even when
# nothing changed: the directory is configured again only when what
# configuring reads changed since it was configured last, or its .config
# did. That is the tree's Kconfig files, its config fragments, kconfig
# and the scripts Kconfig runs, the Makefile; the config fragments; the
# toolchain, and rustc if there is one (.config records its version);
# and this script, which says how to configure. kbuild itself configures
# again for a Kconfig file newer than the last build, but would not
# apply tinyconfig and the fragments.
# shellcheck disable=SC2086
config_key=$({
	echo "$src $arch$frags"
	cat $files "$TOP/harness/build-kernel.sh"
	for t in gcc ld as; do
		"$cross$t" --version | head -n 1
	done
	rustc --version 2>/dev/null || true
	(cd "$src" && find . -name .git -prune -o -type f \( -name 'Kconfig*' \
		-o -path './scripts/kconfig/*' -o -path './scripts/*.sh' \
		-o -path '*/configs/*.config' -o -path ./Makefile \) -print |
		LC_ALL=C sort | xargs cat)
} | sha256sum | cut -c1-32)
config_sum() {
	sha256sum "$out/.config" 2>/dev/null | cut -c1-32
}
if [ "$(cat "$out/.config-key" 2>/dev/null)" = "$config_key $(config_sum)" ]; then
	msg "    configured before with the same inputs"
	: >"$log"
else
	rm -f "$out/.config-key"
	# shellcheck disable=SC2086
	{
		kmake tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
			$files &&
		kmake olddefconfig
	} >"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		die "configuring kernel $name failed"
	}
	configured=1
fi

# Every option a fragment asks for must have its value, unless the tree
# has no such symbol (the series' option, before the series adds it).
for f in $files; do
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)/\1 \2/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1 n/p' "$f"
done | while read -r sym val; do
	got=$(sed -n -e "s/^$sym=//p" -e "s/^# $sym is not set/n/p" "$out/.config")
	[ -n "$got" ] || got=n
	[ "$got" = "$val" ] && continue
	if ! grep -rqs --include='Kconfig*' "^[[:space:]]*config ${sym#CONFIG_}\$" "$src"; then
		[ "$val" = n ] || msg "    note: $sym is not in this tree"
		continue
	fi
	msg "    $sym: wanted $val, got $got (unmet dependency?)"
	echo "$sym" >>"$out/.config-mismatch"
done
if [ -s "$out/.config-mismatch" ]; then
	rm -f "$out/.config-mismatch"
	die "kernel $name: the config fragments are not met"
fi
[ -z "${configured:-}" ] || echo "$config_key $(config_sum)" >"$out/.config-key"

# The image may be one that --image-only copied from the cache, newer than
# the vmlinux of this directory's last build: make it again from vmlinux.
rm -f "$out/$image"
run_logged "$log.build" kmake "$target" || die "building kernel $name failed"
cat "$log.build" >>"$log"
rm -f "$log.build"
[ -z "$inputs" ] || echo "$inputs" >"$out/.build-inputs"
if [ -n "$key" ]; then
	mkdir -p "$BUILT_STAMPS"
	echo "$(git -C "$src" log -1 --format='%h %s') ($name)" >"$BUILT_STAMPS/$key"
fi
if [ -n "$key" ] && [ -n "$image_only" ]; then
	mkdir -p "$IMAGES"
	cp "$out/$image" "$IMAGES/$key.tmp"
	mv "$IMAGES/$key.tmp" "$IMAGES/$key"
	# Those no run has taken for two weeks go.
	find "$IMAGES" -type f -mtime +14 -delete
fi
echo built >"$out/.build-result"
msg "    $(wc -c <"$out/$image") bytes: ${out#"$TOP"/}/$image"
stage_end
