#!/bin/sh
# run-cell.sh [OPTIONS] CELL: boot one cell of the matrix
# (harness/boot-cell.sh), then judge it (harness/judge-cell.sh), which
# writes build/results/NAME.{log,ktap,row}. Exits non-zero if the cell
# fails, and then shows the tail of its console. The options, before
# CELL, are those of both: boot-cell.sh's --matrix, --name, --kernel,
# --tests, --oracle-seconds, --no-guest-tests; judge-cell.sh's --counts,
# --counts-cell.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

matrix='' name='' kernel='' tests='' osecs='' noguest='' counts='' ccell=''
while [ $# -gt 1 ]; do
	case $1 in
	--matrix) matrix=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--oracle-seconds) osecs=$2; shift 2 ;;
	--no-guest-tests) noguest=$1; shift ;;
	--counts) counts=$2; shift 2 ;;
	--counts-cell) ccell=$2; shift 2 ;;
	*) die "run-cell.sh: unknown option '$1'" ;;
	esac
done
cell=${1:?usage: run-cell.sh [OPTIONS] CELL}
sh "$TOP/harness/boot-cell.sh" ${matrix:+--matrix "$matrix"} ${name:+--name "$name"} \
	${kernel:+--kernel "$kernel"} ${tests:+--tests "$tests"} \
	${osecs:+--oracle-seconds "$osecs"} ${noguest:+"$noguest"} "$cell"
exec sh "$TOP/harness/judge-cell.sh" ${counts:+--counts "$counts"} \
	${ccell:+--counts-cell "$ccell"} "${name:-$cell}"
