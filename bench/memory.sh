#!/usr/bin/env bash
# Memory benchmark of `gate run --judge offline` and `gate check` over two
# kinds of datasets: "generated" rows of typical samples (a question, 5
# retrieved contexts of a few hundred characters, a response, a reference
# and an id; about 2.9 KB a sample as JSON Lines) and "real" rows, the
# public amnesty_qa extract in testdata repeated with fresh ids (long
# answers, 3 contexts; about 3.5 KB a sample). Builds the gate, runs it
# under /usr/bin/time -v and prints the peak resident set size, in total
# and per 10,000 samples, the wall time, and the size of the results file
# per sample, with texts (the default) and, for run, without them. Besides
# run and check it measures check with the responses in a separate file
# (--responses, the dataset's own responses), a sequential check
# (--sequential), a check writing the HTML report (--report) and
# `gate merge` of the run's four shards (`gate run --shard i/4`, texts
# recorded), which must stay as flat.
#
# Targets: 40,000 samples under 300 MB peak RSS for run and for check, and
# RSS at 40,000 no more than 1.3 x RSS at 10,000 (printed as "growth");
# results without texts at most 1.5 KB a sample, with texts at most twice
# the dataset's size.
#
# Environment: BENCH_SIZES (samples per dataset, default "10000 20000
# 40000"), BENCH_DATA (kinds, default "generated real"), BENCH_COMMANDS
# (default "run run-notexts check check-responses check-sequential check-html merge"),
# BENCH_DIR (work directory, default a fresh temporary one), GATE (a gate
# binary to measure instead of building one).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! [ -x /usr/bin/time ]; then
	if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
		apt-get install -y -qq time >/dev/null
	else
		echo "bench/memory.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
		exit 2
	fi
fi
for tool in awk go; do
	command -v "$tool" >/dev/null || { echo "bench/memory.sh needs $tool" >&2; exit 2; }
done

dir=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
rm -f "$dir/peaks"
gate=${GATE:-$dir/gate}
if [ -z "${GATE:-}" ]; then
	go build -o "$gate" ./cmd/gate
fi

# gen N: N typical samples as JSON Lines, deterministic.
gen() {
	awk -v n="$1" 'BEGIN {
		srand(7)
		split("battery inverter panel charge grid storage capacity warranty install roof " \
			"current voltage module system backup outage meter tariff export import " \
			"kestrel unit stack cycle depth discharge efficiency temperature cabinet firmware " \
			"update app monitor alert season winter summer night morning peak load " \
			"circuit breaker cable permit inspection contractor price rebate credit utility", v, " ")
		nv = length(v)
		for (i = 1; i <= n; i++) {
			printf "{\"id\": \"s-%06d\", \"user_input\": \"%s?\", \"retrieved_contexts\": [", i, words(12)
			for (c = 1; c <= 5; c++) printf "%s\"%s.\"", (c > 1 ? ", " : ""), words(55)
			printf "], \"response\": \"%s.\", \"reference\": \"%s.\"}\n", words(45), words(35)
		}
	}
	function words(k,   s, j) {
		s = "Sample " i
		for (j = 0; j < k; j++) s = s " " v[int(rand() * nv) + 1]
		return s
	}'
}

# real N: the amnesty_qa rows of testdata repeated to N samples, each with
# a fresh id.
real() {
	awk -v n="$1" '{ rows[NR] = $0 } END {
		for (i = 0; i < n; i++) { r = rows[i % NR + 1]; sub(/^\{/, "{\"id\": \"r-" sprintf("%06d", i) "\", ", r); print r }
	}' testdata/datasets/amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl
}

# peak CMD...: runs CMD under time -v; prints "peak_kb seconds exit".
peak() {
	local log=$dir/time.log rc=0
	/usr/bin/time -v "$@" >/dev/null 2>"$log" || rc=$?
	awk -v rc="$rc" '
		/Maximum resident set size/ { kb = $NF }
		/Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = t[n] + (n > 1 ? 60 * t[n-1] : 0) + (n > 2 ? 3600 * t[n-2] : 0) }
		END { print kb, s, rc }' "$log"
}

printf '%-9s %-16s %8s %8s  %-5s %10s %12s %8s %14s\n' data command samples "file MB" exit "peak MB" "MB per 10k" seconds "results/sample"
worst=0
for kind in ${BENCH_DATA:-generated real}; do
	for n in ${BENCH_SIZES:-10000 20000 40000}; do
		data=$dir/$kind-$n.jsonl
		if ! [ -s "$data" ]; then
			case $kind in
			generated) gen "$n" >"$data" ;;
			real) real "$n" >"$data" ;;
			*) echo "bench/memory.sh: unknown BENCH_DATA kind $kind (generated, real)" >&2; exit 2 ;;
			esac
		fi
		bytes=$(wc -c <"$data")
		mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
		"$gate" run --quiet --judge offline --dataset "$data" --out "$dir/base-$kind-$n.json" 2>/dev/null >/dev/null || true
		if ! [ -s "$dir/responses-$kind-$n.jsonl" ]; then
			# The dataset's own responses, as a pipeline would write them.
			awk '{
				id = ""
				if (match($0, /"id": *"[^"]*"/)) id = substr($0, RSTART, RLENGTH)
				if (match($0, /"response": *"([^"\\]|\\.)*"/)) print "{" id ", " substr($0, RSTART, RLENGTH) "}"
			}' "$data" >"$dir/responses-$kind-$n.jsonl"
		fi
		for cmd in ${BENCH_COMMANDS:-run run-notexts check check-responses check-sequential check-html merge}; do
			case $cmd in
			run) res=$dir/head-$kind-$n.json; set -- "$gate" run --quiet --judge offline --dataset "$data" --out "$res" ;;
			run-notexts) res=$dir/notexts-$kind-$n.json; set -- "$gate" run --quiet --judge offline --record-texts=false --dataset "$data" --out "$res" ;;
			check) res=$dir/check-$kind-$n.json; set -- "$gate" check --quiet --judge offline --dataset "$data" --baseline "$dir/base-$kind-$n.json" --out "$res" ;;
			check-responses) res=$dir/checkr-$kind-$n.json; set -- "$gate" check --quiet --judge offline --dataset "$data" --responses "$dir/responses-$kind-$n.jsonl" --baseline "$dir/base-$kind-$n.json" --out "$res" ;;
			check-sequential) res=$dir/checks-$kind-$n.json; set -- "$gate" check --quiet --sequential --judge offline --dataset "$data" --baseline "$dir/base-$kind-$n.json" --out "$res" ;;
			check-html) res=$dir/checkh-$kind-$n.json; set -- "$gate" check --quiet --judge offline --dataset "$data" --baseline "$dir/base-$kind-$n.json" --out "$res" --report "$dir/report-$kind-$n.html" ;;
			merge)
				res=$dir/merged-$kind-$n.json
				shards=()
				for i in 1 2 3 4; do
					shards+=("$dir/shard-$kind-$n-$i.json")
					"$gate" run --quiet --judge offline --shard "$i/4" --dataset "$data" --out "$dir/shard-$kind-$n-$i.json" >/dev/null 2>&1 || true
				done
				set -- "$gate" merge --quiet --out "$res" "${shards[@]}" ;;
			*) echo "bench/memory.sh: unknown command $cmd in BENCH_COMMANDS" >&2; exit 2 ;;
			esac
			read -r kb secs rc < <(peak "$@")
			rb=$( [ -s "$res" ] && wc -c <"$res" || echo 0)
			awk -v k="$kind" -v c="$cmd" -v n="$n" -v mb="$mb" -v kb="$kb" -v s="$secs" -v rc="$rc" -v rb="$rb" -v db="$bytes" 'BEGIN {
				printf "%-9s %-16s %8d %8s  %-5s %10.0f %12.1f %8.1f %8.2f KB %4.1fx\n", k, c, n, mb, rc, kb / 1024, kb / 1024 / (n / 10000), s, rb / n / 1000, rb / db }'
			[ "$n" -ge 40000 ] && [ "$cmd" != run-notexts ] && [ "$kb" -gt "$worst" ] && worst=$kb || true
			echo "$kind $cmd $n $kb" >>"$dir/peaks"
		done
	done
done
if [ "$worst" -gt 0 ]; then
	awk -v kb="$worst" 'BEGIN { printf "\n40,000 samples: peak %.0f MB (target 300 MB): %s\n", kb / 1024, (kb / 1024 < 300 ? "ok" : "MISSED") }'
fi
# Growth: the peak at 40,000 samples over the peak at 10,000, per kind and
# command (target 1.3: memory flat in the number of samples).
if [ -s "$dir/peaks" ]; then
	awk '{ kb[$1 " " $2 " " $3] = $4; seen[$1 " " $2] = 1 }
		END {
			for (k in seen) if ((k " 10000") in kb && (k " 40000") in kb) {
				r = kb[k " 40000"] / kb[k " 10000"]
				printf "growth %-26s RSS(40,000) / RSS(10,000) = %.2f (target 1.3): %s\n", k, r, (r <= 1.3 ? "ok" : "MISSED")
			}
		}' "$dir/peaks" | sort
	rm -f "$dir/peaks"
fi
