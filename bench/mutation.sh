#!/usr/bin/env bash
# Mutation testing of the pure packages with gremlins: each mutant changes
# one operator (< to <=, + to -, a negated condition, ++ to --) and the
# package's tests must fail on it. Prints a table per package:
#
#   package | killed | lived | not covered | timed out | efficacy | mutator coverage
#
# efficacy = killed / (killed + lived); mutator coverage = (killed + lived)
# / all mutants. Targets (README, Development): internal/compare >= 90%
# efficacy and >= 95% coverage, metrics >= 95% efficacy.
#
# Usage:
#   bench/mutation.sh                       # every pure package
#   bench/mutation.sh internal/compare      # some packages
#   DIFF=main bench/mutation.sh             # only mutants on lines changed since main
#   VERBOSE=1 bench/mutation.sh ...         # list the mutants that lived
#
# Environment: WORKERS (default: number of CPUs), GREMLINS_VERSION.
#
# Equivalent mutants (they cannot change behaviour, so no test can kill
# them) are listed at the end of this file with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${GREMLINS_VERSION:-v0.6.0}
bin="$(go env GOPATH)/bin/gremlins"
if ! "$bin" --version >/dev/null 2>&1; then
	echo "installing gremlins $version through the Go module proxy" >&2
	go install "github.com/go-gremlins/gremlins/cmd/gremlins@$version"
fi

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(metrics internal/compare internal/report internal/dataset internal/results)
fi
workers=${WORKERS:-$(nproc)}
args=(--workers "$workers" --timeout-coefficient 10)
if [ -n "${DIFF:-}" ]; then
	args+=(--diff "$DIFF")
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-18s %7s %6s %12s %10s %9s %9s\n' package killed lived "not covered" "timed out" efficacy coverage
for p in "${pkgs[@]}"; do
	p=${p#./}
	out="$tmp/$(echo "$p" | tr / _).txt"
	"$bin" unleash "${args[@]}" "./$p" >"$out" 2>&1 || true
	awk -v pkg="$p" '
	/^Killed:/ { gsub(",", ""); k=$2; l=$4; nc=$7 }
	/^Timed out:/ { gsub(",", ""); to=$3 }
	END {
		if (k == "") { printf "%-18s (gremlins failed: see its output)\n", pkg; exit }
		eff = (k + l) ? 100 * k / (k + l) : 100
		cov = (k + l + nc) ? 100 * (k + l) / (k + l + nc) : 100
		printf "%-18s %7d %6d %12d %10d %8.1f%% %8.1f%%\n", pkg, k, l, nc, to, eff, cov
	}' "$out"
	if [ -n "${VERBOSE:-}" ]; then
		grep -E '^ *(LIVED|NOT COVERED|TIMED OUT)' "$out" | sed 's/^ */    /' || true
	fi
done
exit 0

# Equivalent mutants: see the Development section of README.md.
