//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Loading a dataset from a pipe that never ends, whether it keeps sending
// samples or stalls, stops promptly when the run is cancelled (SIGINT or
// SIGTERM in main) and exits 130.
func TestLoadingFromAnEndlessPipeIsCancelled(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *os.File, stop <-chan struct{})
	}{
		{"endless samples", func(w *os.File, stop <-chan struct{}) {
			line := []byte(`{"user_input": "How long?", "response": "Long.", "reference": "Very long."}` + "\n")
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := w.Write(bytes.Replace(line, []byte("How"), []byte(strings.Repeat("x", i%50+1)), 1)); err != nil {
					return
				}
			}
		}},
		{"stalled pipe", func(w *os.File, stop <-chan struct{}) {
			_, _ = w.Write([]byte(`{"user_input": "How long?", "res`))
			<-stop
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "golden.jsonl")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				defer w.Close()
				tt.write(w, stop)
			}()
			defer func() { close(stop); <-done }()

			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			var stderr bytes.Buffer
			codec := make(chan int, 1)
			go func() {
				codec <- Main(ctx, []string{"run", "--quiet", "--judge", "offline", "--dataset", fifo, "--max-dataset-size", "0", "--out", filepath.Join(t.TempDir(), "r.json")},
					Env{Stderr: &stderr, Getenv: func(string) string { return "" }})
			}()
			select {
			case code := <-codec:
				if code != ExitCancelled {
					t.Fatalf("exit %d, want 130\n%s", code, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("loading did not stop within 10 s of the cancellation")
			}
		})
	}
}
