#!/bin/sh
# sparse (C=2) and W=1 over the C files the series touches, in the arm64
# 'debug' build of the base and of the series: the series must add no warning
# that the base does not already have. Warnings are compared without their
# line and column numbers, which the series shifts.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
base_src=$BUILD/base/linux
series_out=$BUILD/kernel/debug
base_out=$BUILD/base/kernel/debug
for d in "$series_out" "$base_out"; do
	[ -f "$d/.config" ] || die "no kernel build in $d: run 'make kernels base-kernel'"
done

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

warnings "$base_src" "$base_out" base
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
