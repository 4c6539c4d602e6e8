package cli

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
)

// seqBenchData writes n samples whose responses have four sentences, each
// supported by the context with probability p (the fake judge's verdict:
// most of its words are in the context), drawn with seed.
func seqBenchData(b *testing.B, path string, n int, p float64, seed uint64) {
	b.Helper()
	supported := []string{"The unit stores 13.5 kWh of energy", "It charges fully in two hours", "The warranty lasts ten years",
		"The inverter is rated at five kW", "The cabinet is rated for outdoor use"}
	unsupported := []string{"The unit floats on water", "It sings softly at night", "The battery is painted purple",
		"Owners receive free pizza monthly", "The cabinet speaks seven languages"}
	context := strings.Join(supported, ". ") + "."
	rng := rand.New(rand.NewPCG(seed, 7))
	var rows strings.Builder
	for i := range n {
		var ss []string
		for k := range 4 {
			if rng.Float64() < p {
				ss = append(ss, supported[(i+k)%len(supported)])
			} else {
				ss = append(ss, unsupported[(i+k)%len(unsupported)])
			}
		}
		fmt.Fprintf(&rows, "{\"id\": \"s%04d\", \"user_input\": \"Tell me about unit %d.\", \"retrieved_contexts\": [%q], \"response\": %q}\n",
			i, i, context, strings.Join(ss, ". ")+".")
	}
	if err := os.WriteFile(path, []byte(rows.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSequentialCheck runs `gate check --sequential` against an
// OpenAI-compatible judge fake over 1,000 samples judged for faithfulness
// (two chat calls a sample), for two heads that change every answer: one
// of the same quality as the base (each sentence supported with
// probability 0.8 on both sides, drawn afresh: A/A) and one that lost
// 0.1 of faithfulness. It reports the chat calls of the sequential check
// and of a full one, and the share of samples judged. bench/sequential.sh
// runs it.
func BenchmarkSequentialCheck(b *testing.B) {
	const n = 1000
	dir := b.TempDir()
	judge := openaitest.NewServer(b)
	env := func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-test"
		}
		return ""
	}
	gateRun := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		all := append(args, "--metrics", "faithfulness", "--base-url", judge.URL, "--model", "m", "--no-cache", "--quiet")
		code := Main(context.Background(), all, Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: env})
		return code, stdout.String() + stderr.String()
	}
	data := func(name string, p float64, seed uint64) string {
		path := filepath.Join(dir, name+".jsonl")
		seqBenchData(b, path, n, p, seed)
		return path
	}
	base := filepath.Join(dir, "base.json")
	if code, out := gateRun("run", "--dataset", data("base", 0.8, 1), "--out", base); code != 0 {
		b.Fatalf("base: exit %d\n%s", code, out)
	}
	heads := []struct {
		name string
		data string
		want int
	}{
		{"aa", data("aa", 0.8, 2), 0},
		{"broken", data("broken", 0.7, 3), 1},
	}
	figures := map[string]float64{}
	for b.Loop() {
		for _, h := range heads {
			for _, seq := range []bool{false, true} {
				args := []string{"check", "--dataset", h.data, "--baseline", base, "--out", filepath.Join(dir, h.name+".json")}
				if seq {
					args = append(args, "--sequential")
				}
				before := judge.ChatCalls()
				code, out := gateRun(args...)
				if code != h.want {
					b.Fatalf("%s head (sequential %v): exit %d, want %d\n%s", h.name, seq, code, h.want, out)
				}
				calls := float64(judge.ChatCalls() - before)
				kind := "full"
				if seq {
					kind = "seq"
				}
				figures[h.name+"_calls_"+kind] = calls
			}
			figures[h.name+"_share"] = figures[h.name+"_calls_seq"] / figures[h.name+"_calls_full"]
		}
	}
	for k, v := range figures {
		b.ReportMetric(v, k)
	}
}
