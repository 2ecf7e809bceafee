#!/bin/sh
# check-switch-order.sh [VMLINUX]: __switch_to() gives the CPU the
# incoming thread's memory model only after its dsb(ish), so that the
# outgoing thread's accesses complete under its own model. QEMU's TCG
# has no store buffer, so no boot can see a write of ACTLR_EL1 made
# before the barrier: this reads the order from the disassembly of
# VMLINUX (default: the debug kernel's, build/kernel/debug/vmlinux).
#
# It follows __switch_to()'s control flow from its entry: branches, and
# at a static key's site (a __jump_table entry) or a branch that an
# alternative patches (an .altinstructions entry) both ways. A path that
# reaches an 'msr actlr_el1' (s3_0_c1_c0_1), or a call of a function
# that holds one (mem_model_write() when the compiler keeps it out of
# line), before a 'dsb ish' fails the check. So does a function with no
# such write after its barrier: a check that finds nothing proves
# nothing. Addresses are taken modulo 2^32, which holds the kernel's text.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

vmlinux=${1:-$(variant_out debug)/vmlinux}
[ -f "$vmlinux" ] || die "no $vmlinux: build the debug kernel first (make kernels)"
objdump=${CROSS_COMPILE}objdump
nm=${CROSS_COMPILE}nm

stage "switch order: __switch_to() writes ACTLR_EL1 after its dsb(ish)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$nm" "$vmlinux" >"$tmp/nm"
grep -q ' mem_model_switching$' "$tmp/nm" ||
	die "$vmlinux: no mem_model_switching: not built with CONFIG_ARM64_MEMORY_MODEL_CONTROL"
sym() {
	awk -v s="$1" '$3 == s { print $1 }' "$tmp/nm"
}
# The whole text once (about 2 s): which functions write ACTLR_EL1, and
# __switch_to()'s own instructions.
"$objdump" -d --no-show-raw-insn "$vmlinux" | awk -v w="$tmp/writers" -v s="$tmp/switch" '
	/^[0-9a-f]+ <.*>:$/ { f = substr($2, 2, length($2) - 3) }
	/\tmsr\t(actlr_el1|s3_0_c1_c0_1),/ { print f >w }
	f == "__switch_to" && /^ *[0-9a-f]+:\t/ { print >s }'
[ -s "$tmp/switch" ] || die "$vmlinux: no __switch_to"
touch "$tmp/writers"
# The static keys' and the alternatives' tables, as bytes.
tables() {
	"$objdump" -s --start-address="0x$2" --stop-address="0x$3" "$vmlinux" |
		awk -v t="$1" '/^ [0-9a-f]+ / { print t, $0 }'
}
{
	tables J "$(sym __start___jump_table)" "$(sym __stop___jump_table)"
	tables A "$(sym __alt_instructions)" "$(sym __alt_instructions_end)"
} >"$tmp/tables"

awk -v writers="$tmp/writers" -v tables="$tmp/tables" '
function hex(s,   i, n, c) {
	n = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c)
			break
		n = n * 16 + c - 1
	}
	return n
}
function low(s) { return hex(substr(s, length(s) - 7)) }
function u32(t, a,   i, v) {
	v = 0
	for (i = 3; i >= 0; i--)
		v = v * 256 + byte[t, a + i]
	return v
}
function s32(t, a,   v) { v = u32(t, a); return v >= 2147483648 ? v - 4294967296 : v }
function wrap(v) { return v < 0 ? v + 4294967296 : v % 4294967296 }
function off(a) { return sprintf("__switch_to+%#x", a - first) }
function target(ops) {
	return match(ops, /[0-9a-f]+ </) ? low(substr(ops, RSTART, RLENGTH - 2)) : -1
}
function writes(a,   m, o, c) {
	m = mn[a]; o = ops[a]
	if (m == "msr" && o ~ /^(actlr_el1|s3_0_c1_c0_1),/)
		return "msr " o
	if (m == "bl" && match(o, /<[^>+]*/)) {
		c = substr(o, RSTART + 1, RLENGTH - 1)
		if (c in writer)
			return "bl " c " (which writes ACTLR_EL1)"
	}
	return ""
}
# walk(from, stop): mark seen[] every instruction reachable from "from",
# without passing a "dsb ish" if stop. Returns the first write found.
function walk(from, stop,   sp, st, a, m, t, w, found) {
	sp = 0; st[++sp] = from; found = ""
	while (sp > 0) {
		a = st[sp--]
		while ((a in mn) && !((stop, a) in seen)) {
			seen[stop, a] = 1
			m = mn[a]
			if (stop && m == "dsb" && ops[a] ~ /^ish/)
				break
			w = writes(a)
			if (w != "" && found == "")
				found = off(a) ": " w
			if (a in jt)
				st[++sp] = jt[a]
			if ((a in alt) && m == "b")
				st[++sp] = nxt[a]
			t = target(ops[a])
			if (m == "b") {
				a = t
				continue
			}
			if (m ~ /^b\./ || m ~ /^(cbz|cbnz|tbz|tbnz)$/)
				st[++sp] = t
			if (m == "ret" || m == "eret" || m == "br")
				break
			a = nxt[a]
		}
	}
	return found
}
BEGIN {
	# Keys of addresses past 2^31 must stay exact (mawk would print %.6g).
	CONVFMT = "%.0f"
	while ((getline l <writers) > 0)
		writer[l] = 1
	while ((getline l <tables) > 0) {
		# "T  ADDRESS WORD WORD WORD WORD  ASCII": the words by column.
		t = substr(l, 1, 1); l = substr(l, 3)
		a = low(substr(l, 2, 16))
		if (!((t, "start") in base))
			base[t, "start"] = a
		for (i = 0; i < 4; i++) {
			w = substr(l, 19 + 9 * i, 8)
			for (j = 1; j < 8 && substr(w, j, 2) ~ /^[0-9a-f][0-9a-f]$/; j += 2)
				byte[t, a++] = hex(substr(w, j, 2))
		}
		base[t, "end"] = a
	}
}
{
	split($0, f, "\t")
	a = low(substr(f[1], 1, length(f[1]) - 1))
	sub(/^ +/, "", f[2])
	mn[a] = f[2]; ops[a] = f[3]
	if (NR == 1)
		first = a
	else
		nxt[prev] = a
	prev = a
	if (f[2] == "dsb" && f[3] ~ /^ish/)
		dsb[a] = 1
}
END {
	last = prev
	# struct jump_entry { s32 code; s32 target; long key; }
	for (e = base["J", "start"]; e + 16 <= base["J", "end"]; e += 16) {
		c = wrap(e + s32("J", e))
		if (c >= first && c <= last)
			jt[c] = wrap(e + 4 + s32("J", e + 4))
	}
	# struct alt_instr { s32 orig_offset; s32 alt_offset; u16 cpucap; u8 orig_len; u8 alt_len; }
	for (e = base["A", "start"]; e + 12 <= base["A", "end"]; e += 12) {
		c = wrap(e + s32("A", e))
		for (i = 0; i < byte["A", e + 10]; i += 4)
			if (c + i >= first && c + i <= last)
				alt[c + i] = 1
	}
	nd = 0
	for (a in dsb)
		nd++
	if (!nd) {
		print "no dsb ish in __switch_to"
		exit 1
	}
	bad = walk(first, 1)
	if (bad != "") {
		print "an ACTLR_EL1 write on a path before the dsb ish: " bad
		exit 1
	}
	for (a in dsb) {
		good = walk(nxt[a], 0)
		if (good != "")
			break
	}
	if (good == "") {
		print "no ACTLR_EL1 write after the dsb ish: nothing to check"
		exit 1
	}
	jn = 0
	for (a in jt)
		jn++
	printf "after the dsb ish only (first: %s; static key sites followed: %d)\n", good, jn
}' "$tmp/switch" >"$tmp/out" || {
	msg "    $(cat "$tmp/out")"
	die "check-switch-order: ${vmlinux#"$TOP"/}: __switch_to() fails the order of its dsb(ish) and its ACTLR_EL1 write"
}
msg "    ${vmlinux#"$TOP"/}: ACTLR_EL1 written $(cat "$tmp/out")"
stage_end
