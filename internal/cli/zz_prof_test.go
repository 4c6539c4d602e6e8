package cli

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

func TestZZProf(t *testing.T) {
	args := os.Getenv("PROF_ARGS")
	if args == "" {
		t.Skip()
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var best uint64
		for {
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > best {
				best = ms.HeapInuse
				f, _ := os.Create("/tmp/mem/peak.pprof")
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
				t.Logf("heap inuse %d MB", best>>20)
			}
		}
	}()
	code := Main(context.Background(), strings.Fields(args), Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	close(stop)
	<-done
	t.Logf("exit %d", code)
}
