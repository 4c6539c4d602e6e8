package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// The release build stamps version, commit and date with -ldflags -X; both
// forms of `gate version` must show them, and the results files carry the
// version.
func TestVersionStamped(t *testing.T) {
	saved := [3]string{Version, Commit, Date}
	t.Cleanup(func() { Version, Commit, Date = saved[0], saved[1], saved[2] })
	Version, Commit, Date = "v1.4.2", "0123456789abcdef0123456789abcdef01234567", "2026-12-01T20:00:00Z"

	var out bytes.Buffer
	if code := Main(context.Background(), []string{"version"}, Env{Stdout: &out}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if want := "gate v1.4.2 (commit 0123456789ab, built 2026-12-01T20:00:00Z)\n"; out.String() != want {
		t.Errorf("gate version = %q, want %q", out.String(), want)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"version", "--json"}, Env{Stdout: &out}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var b buildInfo
	if err := json.Unmarshal(out.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if b.Version != Version || b.Commit != Commit || b.Date != Date || b.Go == "" || b.Platform == "" {
		t.Errorf("gate version --json = %+v", b)
	}
	if version() != "v1.4.2" {
		t.Errorf("version() = %q, want the stamped one", version())
	}
}

// Without stamps the version comes from the build information, else "dev".
func TestVersionUnstamped(t *testing.T) {
	saved := [3]string{Version, Commit, Date}
	t.Cleanup(func() { Version, Commit, Date = saved[0], saved[1], saved[2] })
	Version, Commit, Date = "", "", ""
	if b := currentBuild(); b.Version == "" {
		t.Error("empty version: want the module version or dev")
	}
	if got := buildSuffix(buildInfo{Commit: "abc"}); got != " (commit abc)" {
		t.Errorf("suffix = %q", got)
	}
	if got := buildSuffix(buildInfo{Date: "d"}); got != " (built d)" {
		t.Errorf("suffix = %q", got)
	}
}
