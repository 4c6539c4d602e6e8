#!/usr/bin/env bash
# Mutation testing of the pure packages with gremlins: each mutant changes
# one operator (< to <=, + to -, a negated condition, ++ to --) and the
# package's tests must fail on it. Prints a table per package:
#
#   package | killed | lived | not covered | timed out | efficacy | mutator coverage
#
# efficacy = killed / (killed + lived); mutator coverage = (killed + lived)
# / (killed + lived + not covered). Targets (README, Development):
# internal/compare >= 90% efficacy and >= 95% coverage, metrics >= 95%
# efficacy.
#
# Usage:
#   bench/mutation.sh                       # every pure package (30 to 60 min on 2 cores)
#   bench/mutation.sh internal/compare      # some packages
#   DIFF=main bench/mutation.sh             # only mutants on lines changed since main
#   VERBOSE=1 bench/mutation.sh ...         # list the mutants that lived
#
# Environment: WORKERS (default: number of CPUs), GREMLINS_VERSION,
# TIMEOUT_COEFFICIENT (a mutant times out after this many times the
# package's test time, default 30: on a busy machine a lower one reports
# slow tests as timed out), MUTANT_TIMEOUT (seconds per mutant run by this
# script, default 300).
#
# Mutants Go coverage cannot map: gremlins v0.6.0 reports every condition
# of a tagless switch ("case x > 0:") and every package-level expression
# (var r = [2]float64{-1, 1}) as NOT COVERED, because Go's coverage profile
# has no counter on them (go-gremlins/gremlins#298). This script runs those
# mutants itself (a case condition only when the body of its case is
# covered): it builds the package's tests with the mutated file through
# `go test -overlay` and counts them as gremlins does, a mutant that does
# not compile (+ on two strings turned into -) as not viable. The table
# includes them; VERBOSE marks them "(unmapped)".
#
# Equivalent mutants (they cannot change behaviour, so no test can kill
# them) are listed at the end of this file with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
module=$(go list -m)

version=${GREMLINS_VERSION:-v0.6.0}
gobin=$(go env GOBIN)
if [ -z "$gobin" ]; then
	gobin="$(go env GOPATH | cut -d: -f1)/bin" # where go install puts it
fi
bin="$gobin/gremlins"
if ! "$bin" --version >/dev/null 2>&1; then
	echo "installing gremlins $version through the Go module proxy" >&2
	go install "github.com/go-gremlins/gremlins/cmd/gremlins@$version"
fi

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(metrics internal/compare internal/report internal/dataset internal/results)
fi
workers=${WORKERS:-$(nproc)}
args=(--workers "$workers" --timeout-coefficient "${TIMEOUT_COEFFICIENT:-30}")
if [ -n "${DIFF:-}" ]; then
	args+=(--diff "$DIFF")
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# mutate FILE LINE COL TYPE prints FILE with the operator at LINE:COL
# replaced as gremlins' TYPE would replace it; it fails when the operator
# is not one TYPE changes.
mutate() {
	awk -v L="$2" -v C="$3" -v T="$4" '
	BEGIN {
		m["CONDITIONALS_BOUNDARY", "<="] = "<"; m["CONDITIONALS_BOUNDARY", ">="] = ">"
		m["CONDITIONALS_BOUNDARY", "<"] = "<="; m["CONDITIONALS_BOUNDARY", ">"] = ">="
		m["CONDITIONALS_NEGATION", "=="] = "!="; m["CONDITIONALS_NEGATION", "!="] = "=="
		m["CONDITIONALS_NEGATION", "<="] = ">"; m["CONDITIONALS_NEGATION", ">="] = "<"
		m["CONDITIONALS_NEGATION", "<"] = ">="; m["CONDITIONALS_NEGATION", ">"] = "<="
		m["ARITHMETIC_BASE", "+"] = "-"; m["ARITHMETIC_BASE", "-"] = "+"
		m["ARITHMETIC_BASE", "*"] = "/"; m["ARITHMETIC_BASE", "/"] = "*"; m["ARITHMETIC_BASE", "%"] = "*"
		m["INVERT_NEGATIVES", "-"] = "+"
		m["INCREMENT_DECREMENT", "++"] = "--"; m["INCREMENT_DECREMENT", "--"] = "++"
		bad = 1
	}
	NR == L + 0 {
		op = substr($0, C, 2)
		if (!((T, op) in m)) op = substr($0, C, 1)
		if ((T, op) in m) {
			$0 = substr($0, 1, C - 1) m[T, op] substr($0, C + length(op))
			bad = 0
		}
	}
	{ print }
	END { exit bad }' "$1"
}

# unmapped PKG OUT runs the NOT COVERED mutants of gremlins output OUT that
# Go coverage cannot map (see the top of this file), appends their results
# to OUT as "<STATUS> (unmapped) TYPE at FILE:LINE:COL", and prints "killed
# lived timed-out not-viable".
unmapped() {
	local p=$1 out=$2 k=0 l=0 to=0 nv=0 cov="$tmp/cover.out"
	local todo
	todo=$(grep -E '^ *NOT COVERED ' "$out" | awk '{ print $3, $5 }' | while read -r type pos; do
		IFS=: read -r f line col <<<"$pos"
		# What the line belongs to: the nearest declaration at column 1.
		decl=$(head -n "$line" "$p/$f" | grep -E '^(func|var|const|type|import|package)[ (]' | tail -n 1 | cut -d' ' -f1)
		if sed -n "${line}p" "$p/$f" | grep -Eq '^[[:space:]]*case[[:space:]]'; then
			echo "case $type $f $line $col"
		elif [ "$decl" = var ] || [ "$decl" = const ]; then
			echo "decl $type $f $line $col"
		fi
	done || true)
	if [ -z "$todo" ]; then
		echo "0 0 0 0"
		return
	fi
	go test -count=1 -coverprofile="$cov" "./$p" >/dev/null 2>&1 || true
	while read -r what type f line col; do
		# The body of a case is a coverage block that starts after the
		# condition, on its line or the next two (a condition over lines).
		[ "$what" = decl ] || awk -v F="$module/$p/$f" -v L="$line" -v C="$col" '
			{
				i = index($0, ":")
				if (substr($0, 1, i - 1) != F) next
				split(substr($0, i + 1), b, /[.,[:space:]]/) # line.col,line.col stmts count
				if (b[1] >= L && b[1] <= L + 2 && (b[1] > L || b[2] > C) && b[6] > 0) found = 1
			}
			END { exit !found }' "$cov" || continue
		mutate "$p/$f" "$line" "$col" "$type" >"$tmp/mutant.go" || continue
		printf '{"Replace": {"%s": "%s"}}\n' "$root/$p/$f" "$tmp/mutant.go" >"$tmp/overlay.json"
		local status rc=0
		timeout "${MUTANT_TIMEOUT:-300}" go test -count=1 -overlay "$tmp/overlay.json" "./$p" >"$tmp/case.txt" 2>&1 || rc=$?
		if [ $rc -eq 0 ]; then
			status=LIVED l=$((l + 1))
		elif [ $rc -eq 124 ]; then
			status="TIMED OUT" to=$((to + 1))
		elif grep -q -e 'build failed' -e 'setup failed' "$tmp/case.txt"; then
			status="NOT VIABLE" nv=$((nv + 1))
		else
			status=KILLED k=$((k + 1))
		fi
		echo "$status (unmapped) $type at $f:$line:$col" >>"$out"
		echo "NOT COVERED $type at $f:$line:$col" >>"$tmp/ran"
	done <<<"$todo"
	echo "$k $l $to $nv"
}

printf '%-18s %7s %6s %12s %10s %9s %9s\n' package killed lived "not covered" "timed out" efficacy coverage
for p in "${pkgs[@]}"; do
	p=${p#./}
	out="$tmp/$(echo "$p" | tr / _).txt"
	"$bin" unleash "${args[@]}" "./$p" >"$out" 2>&1 || true
	read -r ck cl cto cnv < <(unmapped "$p" "$out")
	awk -v pkg="$p" -v ck="$ck" -v cl="$cl" -v cto="$cto" -v cnv="$cnv" '
	/^Killed:/ { gsub(",", ""); k=$2; l=$4; nc=$7 }
	/^Timed out:/ { gsub(",", ""); to=$3 }
	END {
		if (k == "") { printf "%-18s (gremlins failed: see its output)\n", pkg; exit }
		k += ck; l += cl; to += cto; nc -= ck + cl + cto + cnv
		# No mutant on the lines (DIFF touched only tests): nothing to rate.
		eff = (k + l) ? sprintf("%.1f%%", 100 * k / (k + l)) : "-"
		cov = (k + l + nc) ? sprintf("%.1f%%", 100 * (k + l) / (k + l + nc)) : "-"
		printf "%-18s %7d %6d %12d %10d %9s %9s\n", pkg, k, l, nc, to, eff, cov
	}' "$out"
	if [ -n "${VERBOSE:-}" ]; then
		touch "$tmp/ran"
		grep -E '^ *(LIVED|NOT COVERED|TIMED OUT)' "$out" | sed 's/^ */    /' | grep -v -x -F -f <(sed 's/^/    /' "$tmp/ran") || true
		rm -f "$tmp/ran"
	fi
done
exit 0

# Equivalent mutants
#
# The mutants below live because no behaviour can tell them from the code.
# They are named by file, function and the expression mutated, not by line
# (lines move; VERBOSE=1 lists the current positions). Killing them would
# take a test of the implementation rather than of what a user sees, so
# they are left alive on purpose. A lived mutant not listed here is a gap
# in the tests.
#
# Comparisons against a bound shifted by eps (1e-12) or 1e-9, which exists
# so that rounding cannot decide: the mutant (< to <=, > to >=) differs only
# when the value equals bound +- eps to the last bit.
#   internal/compare  compare.go checkFloor (hm < *Min-eps, hm > *Max+eps);
#                     compare.go applyRules (MDE > Tolerance+eps);
#                     family.go decideHypotheses (delta <= -Tolerance+eps,
#                     delta >= Tolerance-eps, LostShare >= Tolerance-eps);
#                     stats.go exactCounts, drawCounts (pattern sums against
#                     the observed sum +- eps)
#   internal/results  io.go checkScore (x < lo-rangeSlack, x > hi+rangeSlack)
#   internal/report   trend.go axisRange (z-a < 0.1-1e-9, 0.1-1e-9 to
#                     0.1+1e-9: at a width of a tenth up to rounding, a =
#                     z-0.1 is a again); history.go Sparkline (hi-lo < 1e-9)
#
# Sort keys that cannot be equal, or ties whose order cannot show.
#   internal/compare  compare.go metricOrder (oi < oj is only reached when
#                     the keys differ; order[i] < order[j]), segments.go
#                     groupPairs (order[i] < order[j]), compare.go
#                     topRegressed (w[idx[a]].d < w[idx[b]].d), thresholds.go
#                     err (a.Line < b.Line), family.go transitions (r <
#                     reason: reasons are map keys, never equal), compare.go
#                     unusedRules (catalogue metrics have distinct orders),
#                     stats.go HolmAdjust (equal p-values get equal adjusted
#                     values in any order)
#   internal/results  merge.go Merge (i < j: only reorders files with the
#                     same shard number, an error either way);
#                     undefined.go judgeUndefined (r < top: reasons are map
#                     keys, never equal)
#   internal/report   segments.go segmentRows (ra < rb is only reached when
#                     ra != rb)
#
# Guards whose other side gives the same result.
#   internal/compare  side.go newSide (len(smp.Reasons) > 0: an empty
#                     reasons map reads like none); compare.go newComparison
#                     (boot < 0: boot is never 0 there, the default replaced
#                     it); paired.go testPairs (mr.N > 0: with no pair every
#                     statistic is NaN either way); compare.go topRegressed
#                     (len(idx) > topRegressed: cutting a slice to its own
#                     length); family.go testLost (counted > 0: 0/0 is the
#                     NaN it already was; n > 0: 0.5^0 = 1 is never below
#                     alpha); family.go adjustHypotheses (ReportOnly !=
#                     reportOnly: the two passes swap families, each still
#                     corrected alone); stats.go SignFlipTest (x > 0: zeros
#                     were skipped above); stats.go BinomialUpperHalf (k <=
#                     0: for k = 0 the sum is the whole distribution, 1 up to
#                     rounding); thresholds.go mapping (i+1 < len: a YAML
#                     mapping holds pairs, its length is even); thresholds.go
#                     deref (i < 100, i++: an alias names an anchored node,
#                     never another alias, so the loop stops after one step)
#   internal/results  io.go jsonErrorPosition (off < 0: sets 0 to 0; i <
#                     int64(len(data)): an error offset never exceeds the
#                     data); io.go (i < 0 after bytes.Index of the samples
#                     field: the encoded object starts with '{', never with
#                     the field); results.go ShortHash (len(h) > 12: h[:12]
#                     of a 12-digit hash is itself); undefined.go
#                     TooManyUndefined (limit >= 1: at limit 1 no count can
#                     exceed the number of samples); texts.go BoundEvidence
#                     (len(items) > MaxEvidence: cutting a slice to its own
#                     length)
#   internal/dataset  the record counters n++ of readLines, streamLines,
#                     readArray, readParquet, readCSV (the count is only
#                     compared with 0: -n is as non-zero as n); dataset.go
#                     detect (end < 0: a line starting with { cannot end at
#                     its first byte); json.go skipString, skipValue,
#                     readArray (j < len(d), i < len(r.data), next <
#                     len(r.data), next <= i: the scanners run on JSON
#                     already validated, a value never runs into the end of
#                     the data); json.go decodeString (len(raw) >= 2,
#                     IndexByte < 0: a fast path for strings without escapes,
#                     json.Unmarshal gives the same string)
#   metrics           distance.go levenshteinDistance (len(a) < len(b):
#                     which string is "a" only decides the row length, the
#                     distance is symmetric); score.go percentileSorted (idx
#                     <= 0: at index 0 the interpolation gives sorted[0] too)
#   internal/report   cuts of a list to its own length: markdown.go rows
#                     (len(r.Metrics) <= limit), writeList (len(shown) >
#                     p.sentences), writeRegressed (len(shown) > p.samples),
#                     writeNewRemoved (len(shown) > p.listCap), code (len(s)
#                     > n), segments.go writeSegments (len(shown) >
#                     p.segRows), format.go short (len(h) > 12); guards no
#                     profile reaches: render (p.samples > 0: every profile
#                     shows at least 3); segments.go segmentCell
#                     (len(parts) > 0: a significant change always has a
#                     part); markdown.go hardCut (budget < 0: at 0 the loop
#                     keeps nothing and cuts the same bytes); cutBytes (n >
#                     0 to n >= 0: only a string starting with a
#                     continuation byte gets there, cut to "" either way);
#                     code (r < utf8.RuneSelf to <=: U+0080 fails every
#                     class that follows); format.go fmtDelta (x < 0: 0
#                     printed 0.000 above); fmtBound (i < 0: FormatFloat
#                     never starts with '.'; len(s)-i-1 < 2: two decimals
#                     append nothing); capacity hints: escape.go flattenN
#                     (b.Grow(min(len(s), 4*limit+4))), escapeFlat
#                     (b.Grow(len(s)+len(s)/8)), trend.go trendSeries
#                     (make(..., len(pts)+1)); counters only compared with
#                     0: verdict.go tally (c.tested++); escape.go flattenN
#                     (n++ after a space: n-- lets it read further, but
#                     snippet keeps the same n-1 runes, and flatten has no
#                     limit n can reach)
#
# Same value by algebra or by numerics.
#   internal/compare  calibrate.go sampleVariance and stats.go stddev ((x -
#                     m)(x - m) to (x + m)(x - m): with m the mean, sum
#                     (x+m)(x-m) = sum x^2 - n m^2 = sum (x-m)^2); stats.go
#                     NormalQuantile (Halley's correction x - u/(1+x*u/2):
#                     the start is accurate to 1.15e-9, so Newton's step,
#                     which each variant still is to first order, reaches
#                     full precision; p < plow, p <= 1-plow: at p = 0.02425
#                     exactly both regions of the approximation are accurate)
#   metrics           distance.go jaroWinklerSimilarity (sim > 0.7 to >= 0.7:
#                     no pair of strings under 200 runes has a Jaro
#                     similarity of exactly 0.7 in float64)
#
# Infinite loops (i++ to i--) show as timed out: the tests caught them.
#
# Unreachable.
#   internal/results  merge.go Merge (k+1 in "file %d is not a shard": files
#                     that are not shards sort first and fail as file 1, so
#                     a later file is always a shard)
