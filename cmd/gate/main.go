// Command gate is raggate's CLI and GitHub Action entrypoint: it runs the
// RAG metric suite over a golden dataset, compares the scores with a
// baseline using noise-aware statistics, and fails on real regressions.
// See `gate help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/raggate/raggate/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}
