# shellcheck shell=sh
# Rows and KTAP: the one writer of a cell's result row, the one reader of
# a named column, the one KTAP parser. Sourced by lib.sh.

# A cell's row (build/results/CELL.row): a header line of these names,
# then one line of values, tab-separated. run-matrix.sh's summary.tsv is
# the same with a column 'base' first.
#   cell        the cell, or CELL:guest for a VM cell's nested guest
#   host        a guest row's cell ('-' for a cell's own row)
#   kernel expect    the cell's columns of the matrix
#   boot        ok, timeout or crashed
#   probe       the probe's verdict, then the client protocols'
#               conclusions, FEX's/Rosetta's: "ok tso/fb"
#   kernel-log  clean, or N-reports, with +N-allowed and +expected-once
#   tests cases     kselftest programs and cases, pass/fail/skip
#   oracle      the oracle stress's checks/mismatches/disagreements, or '-'
#   result      PASS or FAIL
#   time        the boot's wall time
#   failed      the checks that failed, space-separated
ROW_FIELDS='cell host kernel expect boot probe kernel-log tests cases oracle result time failed'

# row_write FILE NAME=VALUE...: write a row with these fields; a field not
# given is '-'; a name that is not a field is an error.
row_write() {
	_rf=$1
	shift
	printf '%s\n' "$@" | awk -v fields="$ROW_FIELDS" '
		BEGIN { n = split(fields, f, " "); for (i = 1; i <= n; i++) known[f[i]] = 1 }
		{
			i = index($0, "=")
			k = substr($0, 1, i - 1)
			if (!i || !(k in known)) {
				print "row_write: no field \"" k "\" (" fields ")" > "/dev/stderr"
				bad = 1
			}
			v[k] = substr($0, i + 1)
		}
		END {
			if (bad)
				exit 1
			for (i = 1; i <= n; i++)
				printf "%s%s", f[i], i < n ? "\t" : "\n"
			for (i = 1; i <= n; i++)
				printf "%s%s", (f[i] in v) ? v[f[i]] : "-", i < n ? "\t" : "\n"
		}' >"$_rf.tmp" || die "row_write $_rf: $*"
	mv "$_rf.tmp" "$_rf"
}

# tsv_field FILE NAME [KEY=VALUE]: column NAME of every line of FILE, a
# tab-separated file with a header line of names (a row, summary.tsv, the
# benchmark's table); with KEY=VALUE, of the lines whose column KEY is
# VALUE. An unknown name is an error.
tsv_field() {
	awk -F'\t' -v n="$2" -v sel="${3:-}" '
		NR == 1 {
			for (i = 1; i <= NF; i++)
				col[$i] = i
			k = sel == "" ? "" : substr(sel, 1, index(sel, "=") - 1)
			want = substr(sel, index(sel, "=") + 1)
			if (!(n in col) || (k != "" && !(k in col))) {
				print "tsv_field: " FILENAME " has no column " (n in col ? k : n) > "/dev/stderr"
				exit 1
			}
			next
		}
		k == "" || $col[k] == want { print $col[n] }' "$1"
}

# ktap_results KTAP: one line a kselftest program or case of KTAP (what
# run_kselftest.sh printed): "TEST<tab>CASE<tab>RESULT", CASE '-' for the
# program itself, RESULT ok, fail or skip. A case line ("# ok 3 name",
# nested deeper with more "# ") belongs to the program whose
# "# selftests: COLLECTION: TEST" header came before it; the program's
# own line ends it. An "ok" with the directive "# SKIP" (in any case, as
# TAP has it) is a skip; a "not ok" is a failure, whatever it says.
ktap_results() {
	awk '
	function result(s) {
		if (s ~ /^not ok/) return "fail"
		return s ~ /# [Ss][Kk][Ii][Pp]/ ? "skip" : "ok"
	}
	function name(s) {
		sub(/^(not )?ok [0-9]+ */, "", s)
		sub(/ *# [Ss][Kk][Ii][Pp].*$/, "", s)
		sub(/ +$/, "", s)
		return s
	}
	/^# selftests: / { test = substr($0, 14); next }
	/^(# )+(not )?ok [0-9]+/ {
		s = $0
		sub(/^(# )+/, "", s)
		printf "%s\t%s\t%s\n", test, name(s), result(s)
		next
	}
	/^(not )?ok [0-9]+/ {
		s = $0
		r = result(s)
		s = name(s)
		sub(/ # .*$/, "", s)	# "# exit=N", "# TIMEOUT" of the runner
		sub(/^selftests: /, "", s)
		printf "%s\t-\t%s\n", s, r
		test = ""
	}' "$1"
}

# ktap_counts RESULTS: "P/F/S P/F/S", the programs' and the cases'
# pass/fail/skip counts of ktap_results' lines.
ktap_counts() {
	awk -F'\t' '
		{ k = ($2 == "-" ? "t" : "c") $3; n[k]++ }
		END {
			printf "%d/%d/%d %d/%d/%d\n", n["tok"], n["tfail"], n["tskip"],
				n["cok"], n["cfail"], n["cskip"]
		}' "$1"
}
