#!/bin/sh
# Install the Debian packages the harness needs, if any is missing.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

stage "dependencies"

pkgs="make gcc git xz-utils cpio bc flex bison libssl-dev libelf-dev kmod
      rsync python3 python3-ply perl ccache gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      qemu-system-arm qemu-system-x86
      dpkg-dev patch meson ninja-build pkg-config libglib2.0-dev
      libpixman-1-dev libfdt-dev zlib1g-dev sparse python3-sphinx
      mandoc groff-base b4 shellcheck"
# The bases that come from the host's archive (harness/bases.tsv), pinned.
pkgs="$pkgs $(bases_lines | awk '$4 == "host" { print $2 "=" $3 }')"

missing=
for p in $pkgs; do
	name=${p%%=*}
	want=${p#"$name"}
	want=${want#=}
	have=$(dpkg-query -W -f '${db:Status-Status} ${Version}' "$name" \
		2>/dev/null || true)
	case $have in
	"installed $want" | "installed "*)
		if [ -z "$want" ] || [ "$have" = "installed $want" ]; then
			continue
		fi
		;;
	esac
	missing="$missing $p"
done

if [ -z "$missing" ]; then
	msg "    all packages present"
	stage_end
	exit 0
fi

msg "    missing:$missing"
if [ "$(id -u)" != 0 ]; then
	die "these packages are missing and installing them needs root: run 'sudo apt-get install$missing', or run make as root"
fi

export DEBIAN_FRONTEND=noninteractive
run_logged "$LOGS/apt-update.log" apt-get update
# shellcheck disable=SC2086
run_logged "$LOGS/apt-install.log" apt-get install -y --no-install-recommends \
	--allow-downgrades $missing
stage_end
