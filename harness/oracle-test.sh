#!/bin/sh
# oracle-test.sh [--name NAME] [--checks MIN:SECONDS] [IMAGE]: boot an
# arm64 kernel image (default: the debug kernel of the matrix) in the
# apple-tso cell with the oracle test alone, and print its figures. Exits
# non-zero if the cell fails. --checks sets the stress's fewest checks and
# seconds (default: the cell's "oracle" defaults, cells.sh); NAME names
# the result files (build/results/NAME.*, default oracle-test).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

name=oracle-test tests=oracle
while [ $# -gt 0 ]; do
	case $1 in
	--name) name=$2; shift 2 ;;
	--checks) tests=oracle:$2; shift 2 ;;
	-*) die "oracle-test.sh: unknown option '$1'" ;;
	*) break ;;
	esac
done
image=${1:-$(variant_image debug)}
[ -f "$image" ] || die "no kernel image '$image'"
image=$(cd "$(dirname "$image")" && pwd)/$(basename "$image")

msg "    $name: ${image#"$TOP"/} in the apple-tso cell, oracle test only"
rc=0
sh "$TOP/harness/run-cell.sh" --name "$name" --kernel "$image" --tests "$tests" \
	--counts none apple-tso || rc=$?
grep -a '^mem-model-oracle: ' "$RESULTS/$name.log" | sed 's/^/    /'
exit "$rc"
