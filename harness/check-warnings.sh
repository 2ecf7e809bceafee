#!/bin/sh
# sparse (C=2) and W=1 over the C files the series touches, in the arm64
# 'debug' build of the base and of the series: the series must add no warning
# that the base does not already have. Warnings are compared without their
# line and column numbers, which the series shifts. The base's warnings
# are kept in the cache under what they are made from (below): a run
# with the same inputs takes them from there, and needs no build of the
# base; otherwise the base's 'debug' is built here, if its build
# directory does not hold a build of the base already.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
base_src=$BUILD/base/linux
series_out=$BUILD/kernel/debug
base_out=$BUILD/base/kernel/debug
[ -f "$series_out/.config" ] || die "no kernel build in $series_out: run 'make kernels'"

# The touched C files the arm64 build compiles (not the selftests).
files=$(git -C "$TREE" diff --name-only base..HEAD -- '*.c' | grep -v '^tools/' || true)
stage "sparse and W=1 over the touched files, base against series"
[ -n "$files" ] || { msg "    the series touches no C file"; stage_end; exit 0; }

# warnings SRC OUT NAME: compile again, with C=2 W=1, the touched files that
# the build in OUT compiled; write the warnings about them, numbers
# dropped, sorted.
warnings() {
	objs=
	for f in $files; do
		# Those this config builds: their object is in the build.
		[ -f "$2/${f%.c}.o" ] && objs="$objs ${f%.c}.o"
	done
	log=$LOGS/warnings-$3.log
	# shellcheck disable=SC2086
	make -C "$1" O="$2" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
		CC="ccache ${CROSS_COMPILE}gcc" C=2 W=1 -j"$JOBS" $objs \
		>"$log" 2>&1 || { tail -n 30 "$log"; die "compiling$objs ($3) failed"; }
	# "../../linux/kernel/sys.c:12:3: warning: X" becomes
	# "kernel/sys.c: warning: X", for the touched files only.
	awk -v files="$files" '
		BEGIN { n = split(files, f) }
		/: (warning|error): / {
			for (i = 1; i <= n; i++) {
				p = index($0, f[i] ":")
				if (p && (p == 1 || substr($0, p - 1, 1) == "/")) {
					rest = substr($0, p + length(f[i]) + 1)
					sub(/^[0-9:]* /, "", rest)
					print f[i] ": " rest
				}
			}
		}' "$log" |
		sort -u >"$RESULTS/warnings-$3.txt"
}

# The base's warnings are those of the base commit's 'debug' build
# (build_key_at: the tree, the variant's configs, the build script, the
# compiler), the checkers (sparse; python3 runs W=1's kernel-doc), make,
# this script and the touched files: the same inputs give the same
# warnings. Empty if the key cannot be read from the commit.
WARNINGS=$CACHE/base-warnings
bkey=$(build_key_at "$TREE" base debug)
wkey=
if [ -n "$bkey" ]; then
	wkey=$({
		echo "$bkey $CROSS_COMPILE"
		sparse --version 2>&1 || echo "no sparse"
		python3 --version 2>&1 || echo "no python3"
		make --version | head -n 1
		sha256sum <"$TOP/harness/check-warnings.sh"
		echo "$files"
	} | sha256sum | cut -c1-32)
fi
if [ -n "$wkey" ] && [ -f "$WARNINGS/$wkey" ]; then
	cp "$WARNINGS/$wkey" "$RESULTS/warnings-base.txt"
	touch "$WARNINGS/$wkey"
	msg "    base: the warnings of a compile with the same inputs ($(cat "$BUILT_STAMPS/$bkey" 2>/dev/null || echo "$bkey"))"
else
	# A build of the base commit in its worktree: 'built' by
	# build-kernel.sh (not an image from the cache), of the base's tree.
	bin=$(kernel_inputs_at "$TREE" base arm64)
	if [ ! -f "$base_src/Makefile" ] || [ ! -f "$base_out/.config" ] ||
		[ "$(cat "$base_out/.build-result" 2>/dev/null)" != built ] ||
		{ [ -n "$bin" ] && [ "$(cat "$base_out/.build-inputs" 2>/dev/null)" != "$bin" ]; }; then
		sh "$TOP/harness/build-base-kernel.sh" debug
	fi
	warnings "$base_src" "$base_out" base
	if [ -n "$wkey" ]; then
		mkdir -p "$WARNINGS"
		cp "$RESULTS/warnings-base.txt" "$WARNINGS/$wkey.tmp"
		mv "$WARNINGS/$wkey.tmp" "$WARNINGS/$wkey"
		# Those no run has taken for two weeks go.
		find "$WARNINGS" -type f -mtime +14 -delete
	fi
fi
warnings "$TREE" "$series_out" series
msg "    touched: $(echo "$files" | paste -sd' ' -)"
msg "    base: $(wc -l <"$RESULTS/warnings-base.txt") warning(s), series: $(wc -l <"$RESULTS/warnings-series.txt")"
new=$(comm -13 "$RESULTS/warnings-base.txt" "$RESULTS/warnings-series.txt")
if [ -n "$new" ]; then
	echo "$new" | sed 's/^/      /'
	die "sparse or W=1: the series adds $(echo "$new" | wc -l) warning(s) (build/logs/warnings-series.log)"
fi
msg "    no new warning"
stage_end
