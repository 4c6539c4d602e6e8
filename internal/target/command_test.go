package target

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as the command target: with $GATE_TARGET_HELPER
// set, TestMain runs helper instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("GATE_TARGET_HELPER"); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper answers JSON Lines requests ({"id", "user_input"}) the way the
// mode says: echo answers all; once answers one and exits; dies-after-N
// answers N then exits 1; crash exits at once; garbage writes a line that
// is not JSON for "question 1"; slow hangs on "question 0"; echo-id
// answers with the request's id; extra (extra-with-id) writes its first
// reply twice; banner writes a line at start, before any request.
func helper(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	n := 0
	if mode == "banner" {
		// A startup line on stdout, before any request.
		fmt.Println(`{"response": "model loaded"}`)
	}
	for in.Scan() {
		var req struct {
			ID        string `json:"id"`
			UserInput string `json:"user_input"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			return 2
		}
		n++
		switch {
		case mode == "crash":
			fmt.Fprintln(os.Stderr, "Traceback: ImportError: no module named rag")
			return 1
		case strings.HasPrefix(mode, "dies-after-"):
			var limit int
			fmt.Sscanf(mode, "dies-after-%d", &limit)
			if n > limit {
				fmt.Fprintln(os.Stderr, "killed: out of memory")
				return 1
			}
		case mode == "garbage" && req.UserInput == "question 1":
			fmt.Println("loading index... done")
			continue
		case mode == "slow" && req.UserInput == "question 0":
			time.Sleep(time.Minute)
		}
		reply := map[string]any{"response": "answer to " + req.UserInput, "retrieved_contexts": []string{"ctx of " + req.ID},
			"usage": map[string]int{"prompt_tokens": 7, "completion_tokens": 3}}
		if mode == "echo-id" || mode == "extra-with-id" {
			reply["id"] = req.ID
		}
		b, _ := json.Marshal(reply)
		if (mode == "extra" || mode == "extra-with-id") && n == 1 {
			// The reply and a stray line, in one write.
			fmt.Print(string(b) + "\n" + string(b) + "\n")
			continue
		}
		fmt.Println(string(b))
		if mode == "once" {
			return 0
		}
	}
	if mode == "goodbye" {
		fmt.Println(`{"response": "bye"}`)
	}
	return 0
}

func commandTarget(t *testing.T, mode string, c Config) *Built {
	t.Helper()
	t.Setenv("GATE_TARGET_HELPER", mode)
	c.Command = fmt.Sprintf("%q -test.run=^$", os.Args[0])
	b, err := Build(c, os.Getenv, "")
	if err != nil {
		t.Fatal(err)
	}
	b.Options.Backoff = time.Millisecond
	return b
}

func TestCommandLongRunning(t *testing.T) {
	b := commandTarget(t, "echo", Config{Concurrency: 3})
	outs := Run(context.Background(), b.Target, samplesN(20), b.Options)
	_ = b.Target.Close()
	for i, o := range outs {
		want := fmt.Sprintf("answer to question %d", i)
		if o.Err != nil || o.Reply.Response != want || o.Reply.Contexts[0] != fmt.Sprintf("ctx of q-%03d", i) || o.Reply.Usage.TotalTokens != 10 {
			t.Fatalf("sample %d: %+v (err %v)", i, o.Reply, o.Err)
		}
	}
	if c := b.Target.(*Command); c.live > 3 {
		t.Errorf("%d processes started, at most 3 allowed", c.live)
	}
}

func TestCommandPerSample(t *testing.T) {
	b := commandTarget(t, "once", Config{PerSample: true, Concurrency: 4})
	outs := Run(context.Background(), b.Target, samplesN(6), b.Options)
	for i, o := range outs {
		if o.Err != nil || o.Reply.Response != fmt.Sprintf("answer to question %d", i) {
			t.Fatalf("sample %d: %+v (err %v)", i, o.Reply, o.Err)
		}
	}
}

func TestCommandDiesMidRun(t *testing.T) {
	// Each process answers 3 requests and dies on the 4th: the dying
	// request is retried on a fresh process, so every sample is answered.
	b := commandTarget(t, "dies-after-3", Config{Concurrency: 1})
	outs := Run(context.Background(), b.Target, samplesN(10), b.Options)
	_ = b.Target.Close()
	retried := 0
	for i, o := range outs {
		if o.Err != nil {
			t.Fatalf("sample %d: %v", i, o.Err)
		}
		if o.Attempts > 1 {
			retried++
		}
	}
	if retried != 3 {
		t.Errorf("%d samples retried, want 3 (the 4th, 7th and 10th requests hit a dying process)", retried)
	}
}

func TestCommandCrashAtStartGivesUp(t *testing.T) {
	b := commandTarget(t, "crash", Config{Concurrency: 2})
	outs := Run(context.Background(), b.Target, samplesN(30), b.Options)
	_ = b.Target.Close()
	for i, o := range outs {
		if o.Err == nil {
			t.Fatalf("sample %d answered by a crashing program", i)
		}
	}
	last := outs[len(outs)-1].Err.Error()
	if !strings.Contains(last, "processes in a row exited without answering") || !strings.Contains(last, "ImportError: no module named rag") {
		t.Errorf("last error = %q; want it to give up, quoting the program's stderr", last)
	}
	if IsTransient(outs[len(outs)-1].Err) {
		t.Error("a target that keeps crashing should not be retried further")
	}
}

func TestCommandMalformedLineAndTimeout(t *testing.T) {
	b := commandTarget(t, "garbage", Config{Concurrency: 1})
	outs := Run(context.Background(), b.Target, samplesN(3), b.Options)
	_ = b.Target.Close()
	if err := outs[1].Err; err == nil || !strings.Contains(err.Error(), `reply is not JSON`) || IsTransient(err) {
		t.Errorf("a log line on stdout: err %v, want a malformed reply, not retried", err)
	}
	if outs[0].Err != nil {
		t.Errorf("sample 0: %v", outs[0].Err)
	}

	b = commandTarget(t, "slow", Config{Concurrency: 1, Timeout: 200 * time.Millisecond, Retries: new(int)})
	start := time.Now()
	outs = Run(context.Background(), b.Target, samplesN(3), b.Options)
	_ = b.Target.Close()
	if err := outs[0].Err; err == nil || !strings.Contains(err.Error(), "no reply within 200ms") {
		t.Errorf("a hung process: err %v", err)
	}
	if outs[1].Err != nil || outs[2].Err != nil {
		t.Errorf("after the hung process was replaced: %v, %v", outs[1].Err, outs[2].Err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %s: the hung process was not killed", el)
	}
}
