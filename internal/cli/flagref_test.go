package cli

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/goldenfile"
)

// docs/flags.md is generated from the flag definitions: it fails when
// stale; -update rewrites it.
func TestFlagReference(t *testing.T) {
	var b bytes.Buffer
	if err := FlagReference(&b); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("..", "..", "docs", "flags.md"), b.Bytes())
	for _, flag := range []string{"--judge-config", "--azure-endpoint", "--target-timeout", "--max-line-size", "--baseline-ref", "--store-branch", "--last", "--min"} {
		if !strings.Contains(b.String(), "`"+flag) {
			t.Errorf("the reference lists no %s", flag)
		}
	}
}

var helpFlag = regexp.MustCompile(`(?m)^  -[a-z-]+`)

// gate help run and check show the flags most runs use, and say how to
// see the rest; --all lists every one.
func TestHelpShowsCommonFlags(t *testing.T) {
	for _, cmd := range []string{"run", "check"} {
		short := gate(t, nil, "help", cmd)
		all := gate(t, nil, "help", cmd, "--all")
		n, total := len(helpFlag.FindAllString(short.stderr, -1)), len(helpFlag.FindAllString(all.stderr, -1))
		if n < 15 || n > 25 || !strings.Contains(short.stderr, "gate help "+cmd+" --all") {
			t.Errorf("gate help %s: %d flags, want 15 to 25 and how to see the rest\n%s", cmd, n, short.stderr)
		}
		if total < 50 || !strings.Contains(all.stderr, "-azure-endpoint") || strings.Contains(all.stderr, "--all") {
			t.Errorf("gate help %s --all: %d flags\n%s", cmd, total, all.stderr)
		}
		if short.code != 0 || all.code != 0 {
			t.Errorf("exit %d, %d", short.code, all.code)
		}
	}
}
