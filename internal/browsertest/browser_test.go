package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// need returns the path of a tool, skipping the test when it is missing
// locally and failing it under CI.
func need(t *testing.T, what, path string) string {
	t.Helper()
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	msg := what + " not found (" + path + "): run .ci/run once, or install it"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + "; CI must run this test")
	}
	t.Skip(msg)
	return ""
}

func chromium(t *testing.T) string {
	t.Helper()
	p := os.Getenv("CHROMIUM")
	if p == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if lp, err := exec.LookPath(name); err == nil {
				p = lp
				break
			}
		}
	}
	return need(t, "headless Chromium", p)
}

func mermaidJS(t *testing.T) string {
	t.Helper()
	p := os.Getenv("RAGGATE_MERMAID_JS")
	if p == "" {
		p, _ = filepath.Abs(filepath.Join("..", "..", ".ci", "node_modules", "mermaid", "dist", "mermaid.min.js"))
	}
	return need(t, "the mermaid npm package", p)
}

// browser starts headless Chromium and returns its context.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Flag("allow-file-access-from-files", true),
		chromedp.WindowSize(1000, 800))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return ctx
}

// screenshot writes png to $RAGGATE_SCREENSHOTS/name when set.
func screenshot(t *testing.T, name string, png []byte) {
	dir := os.Getenv("RAGGATE_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
