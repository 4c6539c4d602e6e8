package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const reviewFile = `{
  "schema": "` + Schema + `",
  "created_at": %s,
  "samples": [{"id": "a", "scores": {"faithfulness": 1}}]
}
`

// Review of issue 22, finding 14: a created_at that is not RFC 3339 is
// named with the format wanted and its line, not Go's layout string.
func TestReviewCreatedAtNotRFC3339(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(p, []byte(strings.Replace(reviewFile, "%s", `"yesterday"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(p)
	if err == nil || !strings.Contains(err.Error(), "created_at") || !strings.Contains(err.Error(), "RFC 3339") || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("Read = %v, want created_at, RFC 3339 and line 3", err)
	}
	if strings.Contains(err.Error(), "2006-01-02") || strings.Contains(err.Error(), "parsing time") {
		t.Errorf("Go internals in %v", err)
	}
}

// Finding 14: a UTF-8 byte order mark at the start is read past.
func TestReviewResultsBOM(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(p, []byte("\ufeff"+strings.Replace(reviewFile, "%s", `"2024-05-01T12:00:00Z"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := Read(p); err != nil || len(f.Samples) != 1 {
		t.Fatalf("Read = %v", err)
	}
	if _, err := Parse([]byte("\ufeff" + strings.Replace(reviewFile, "%s", `"2024-05-01T12:00:00Z"`, 1))); err != nil {
		t.Fatalf("Parse = %v", err)
	}
}
