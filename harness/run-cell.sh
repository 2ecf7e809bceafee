#!/bin/sh
# run-cell.sh [OPTIONS] CELL: boot one cell of the matrix
# (harness/boot-cell.sh), then judge it (harness/judge-cell.sh), which
# writes build/results/NAME.{log,ktap,row}. Exits non-zero if the cell
# fails, and then shows the tail of its console. The options are those of
# both: boot-cell.sh's --matrix, --name, --kernel, --tests,
# --oracle-seconds, --no-guest-tests; judge-cell.sh's --counts,
# --counts-cell.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

boot='' judge='' name=''
while [ $# -gt 1 ]; do
	case $1 in
	--no-guest-tests) boot="$boot $1"; shift ;;
	--name) name=$2; boot="$boot $1 $2"; shift 2 ;;
	--matrix | --kernel | --tests | --oracle-seconds) boot="$boot $1 $2"; shift 2 ;;
	--counts | --counts-cell) judge="$judge $1 $2"; shift 2 ;;
	*) die "run-cell.sh: unknown option '$1'" ;;
	esac
done
cell=${1:?usage: run-cell.sh [OPTIONS] CELL}
# shellcheck disable=SC2086
sh "$TOP/harness/boot-cell.sh" $boot "$cell"
# shellcheck disable=SC2086
exec sh "$TOP/harness/judge-cell.sh" $judge "${name:-$cell}"
