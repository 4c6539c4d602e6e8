package app

import (
	"errors"
	"fmt"
	"testing"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/judge/offline"
)

// The judge is chosen once, from the configuration; what follows asks the
// backend what it can do.
func TestChooseJudge(t *testing.T) {
	key := func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-test"
		}
		return ""
	}
	for _, tt := range []struct {
		name    string
		cfg     JudgeConfig
		getenv  func(string) string
		offline bool
		noKey   NoKey // DecideJudge, falling back
		skip    NoKey // DecideJudge, skipping
	}{
		{"auto without a key", JudgeConfig{Judge: "auto", APIKeyEnv: "OPENAI_API_KEY"}, nil, true, KeyFallBack, KeySkip},
		{"auto with a key", JudgeConfig{Judge: "auto", APIKeyEnv: "OPENAI_API_KEY"}, key, false, KeyOK, KeyOK},
		{"auto with a self-hosted server", JudgeConfig{Judge: "auto", BaseURL: "http://localhost:11434/v1"}, nil, false, KeyOK, KeyOK},
		// An Azure endpoint asks for the LLM judge: refused without a key,
		// as an explicit judge is, in both front ends.
		{"auto with Azure", JudgeConfig{Judge: "auto", Azure: AzureConfig{Endpoint: "https://x.openai.azure.com"}}, nil, false, KeyRefuse, KeySkip},
		{"offline", JudgeConfig{Judge: "offline"}, key, true, KeyOK, KeyOK},
		{"openai without a key", JudgeConfig{Judge: "openai", APIKeyEnv: "OPENAI_API_KEY"}, nil, false, KeyRefuse, KeySkip},
		{"azure", JudgeConfig{Judge: "azure", APIKey: "k"}, nil, false, KeyOK, KeyOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := Env{Getenv: tt.getenv}
			b := chooseJudge(env, &tt.cfg)
			_, isOffline := b.(offlineBackend)
			if isOffline != tt.offline || b.metered() == tt.offline || b.deterministic() != tt.offline {
				t.Errorf("backend %T (metered %v, deterministic %v), want offline=%v", b, b.metered(), b.deterministic(), tt.offline)
			}
			if got := DecideJudge(env, &tt.cfg, false).NoKey; got != tt.noKey {
				t.Errorf("DecideJudge(fall back).NoKey = %v, want %v", got, tt.noKey)
			}
			if got := DecideJudge(env, &tt.cfg, true).NoKey; got != tt.skip {
				t.Errorf("DecideJudge(skip).NoKey = %v, want %v", got, tt.skip)
			}
		})
	}
	for _, m := range offline.Unreliable {
		if backendOf(offline.Provider).declines(m) == "" || backendOf("openai").declines(m) != "" {
			t.Errorf("declines: the offline judge declines %s, the LLM judge nothing", m)
		}
	}
	c := JudgeConfig{Judge: "auto"}
	if UseOfflineJudge(&c); !isOfflineChoice(chooseJudge(Env{}, &c)) {
		t.Error("UseOfflineJudge did not select the offline judge")
	}
}

func isOfflineChoice(b backend) bool { _, ok := b.(offlineBackend); return ok }

// OpenStore is the one place stores are built: each kind its type, an
// unknown kind a usage error.
func TestOpenStore(t *testing.T) {
	env := Env{Dir: t.TempDir()}
	for kind, want := range map[string]any{StoreFile: &baseline.FileStore{}, StoreGit: &baseline.GitStore{}} {
		st, err := OpenStore(env, StoreConfig{Kind: kind, Path: "eval/results.json"})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got, w := typeName(st), typeName(want); got != w {
			t.Errorf("%s: %s, want %s", kind, got, w)
		}
	}
	if h, err := OpenHistorian(env, StoreConfig{Kind: StoreDir, Path: "history"}); err != nil || typeName(h) != "*baseline.DirStore" {
		t.Errorf("dir: %T %v", h, err)
	}
	if _, err := OpenHistorian(env, StoreConfig{Kind: StoreFile, Path: "r.json"}); err == nil {
		t.Error("a file store gave history")
	}
	_, err := OpenStore(env, StoreConfig{Kind: "s3"})
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindUsage {
		t.Errorf("unknown kind: %v, want a usage error", err)
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
