#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine, with nothing skipped: installs the Debian
# packages the tests need (as root; otherwise prints the apt-get line and stops), then checks
# formatting and lints and runs every test of the workspace.
#
# Tests that need root (the local Slurm cluster, engines run as another user through setpriv)
# fail when not run as root; ARENA_SKIP_ROOT_TESTS=1 skips them, said loudly, for a developer
# without root.
set -euo pipefail
cd "$(dirname "$0")/.."

# What each package is for:
#   python3               the Python template engine (engines/python/)
#   gcc make libc6-dev    the C engine skeleton (engines/c/) and the course player libraries
#   libgsl-dev            GSL headers of the course player interface (tests/players/)
#   slurm-wlm munge       a local single-node Slurm (tests/slurm.rs, scripts/slurm-local.sh)
#   util-linux            setpriv: an engine run as an unprivileged user (tests/tournament.rs),
#                         and arena itself as uid 65534 under the sandbox (tests/sandbox.rs)
#   chromium              report.html opened at a game link in a real browser (tests/report.rs)
missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]; }
have python3 || missing+=(python3)
have gcc || missing+=(gcc libc6-dev)
have make || missing+=(make)
[ -f /usr/include/gsl/gsl_spmatrix_uint.h ] || missing+=(libgsl-dev)
have chromium || missing+=(chromium)
# Only the tests that need root use these (slurmctld and munged live in /usr/sbin, outside a
# user's PATH); a developer who skips those tests needs none of them.
if [ "${ARENA_SKIP_ROOT_TESTS:-}" != 1 ]; then
  have slurmctld || missing+=(slurm-wlm)
  have munged || missing+=(munge)
  have setpriv || missing+=(util-linux)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    echo "the tests need Debian packages that are not installed; as root, run:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

if [ "$(id -u)" -ne 0 ] && [ "${ARENA_SKIP_ROOT_TESTS:-}" != 1 ]; then
  echo "note: not root: the tests that need root will fail (set ARENA_SKIP_ROOT_TESTS=1 to skip them)" >&2
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
