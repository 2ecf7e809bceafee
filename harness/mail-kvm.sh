#!/bin/sh
# mail-kvm.sh: write build/mail/kvm/, the posting of the KVM series
# (kvm/), stacked on the main series: its patches and cover letter, from
# build/kvm/linux, To: the maintainers and Cc: the lists that
# get_maintainer.pl names for them, and a base-commit with the main
# series' patches as prerequisites (git format-patch --base). It is
# posted after the main series, which it needs; nothing is sent.
. "$(dirname "$0")/lib.sh"

[ "$BASE" = "$FIRST_BASE" ] || exit 0
ls "$KVM_SERIES"/[0-9][0-9][0-9][0-9]-*.patch >/dev/null 2>&1 || exit 0
git -C "$KVM_TREE" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
	die "no build/kvm/linux: run 'make tree' first"
out=$BUILD/mail/kvm
gm="perl scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats"
patches=$(ls "$KVM_SERIES"/[0-9][0-9][0-9][0-9]-*.patch | grep -v 0000-cover-letter)
# One address a line, joined with ", "; reviewers, whom both lists name,
# go in To: only.
# shellcheck disable=SC2086
tos=$(cd "$KVM_TREE" && $gm --nol $patches)
# shellcheck disable=SC2086
ccs=$(cd "$KVM_TREE" && $gm --nom $patches | grep -vxF "$tos" || true)
to=$(echo "$tos" | paste -sd, - | sed 's/,/, /g')
cc=$(echo "$ccs" | paste -sd, - | sed 's/,/, /g')
[ -n "$to" ] || die "get_maintainer.pl named no maintainer for kvm/"
rm -rf "$out"
mkdir -p "$out"
git -C "$KVM_TREE" -c diff.renames=true format-patch -q --no-thread \
	--cover-letter --cover-from-description=subject --zero-commit \
	--no-signature --abbrev=9 --base=base --subject-prefix=PATCH \
	--to="$to" --cc="$cc" -o "$out" series..HEAD
n=$(ls "$out"/*.patch | wc -l)
msg "    kvm/: $n mails in build/mail/kvm/ ($((n - 1)) patches and the cover letter)"
msg "    $(sed -n 's/^Subject: //p' "$out"/0000-cover-letter.patch)"
msg "    To: $to"
msg "    Cc: $cc"
