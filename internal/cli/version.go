package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/raggate/raggate/internal/results"
)

// Version, Commit and Date are stamped at build time by the release build
// (GoReleaser) and the Dockerfile, e.g.
//
//	-ldflags "-X github.com/raggate/raggate/internal/cli.Version=v1.2.3
//	          -X github.com/raggate/raggate/internal/cli.Commit=<sha>
//	          -X github.com/raggate/raggate/internal/cli.Date=<RFC 3339>"
//
// Left empty, they come from the Go build information: the module version
// for `go install github.com/raggate/raggate/cmd/gate@vX.Y.Z`, the commit
// and its time for a build inside a git checkout.
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// buildInfo is what `gate version --json` prints.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// currentBuild resolves the version, commit and date: the stamped values
// first, then the Go build information, then "dev" for the version.
func currentBuild() buildInfo {
	b := buildInfo{Version: Version, Commit: Commit, Date: Date,
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

// version is the version written into results files and shown by help.
func version() string { return currentBuild().Version }

func versionCmd(_ context.Context, env Env, args []string) error {
	fs := newFlagSet("version", env, "[--json]")
	asJSON := fs.Bool("json", false, "print version, commit, build date, Go version and platform as JSON")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	b := currentBuild()
	if *asJSON {
		out, err := json.MarshalIndent(b, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s\n", out)
		return nil
	}
	fmt.Fprintf(env.Stdout, "gate %s%s\n", b.Version, buildSuffix(b))
	return nil
}

// buildSuffix is the " (commit abc, built DATE)" suffix of `gate version`,
// with what is known.
func buildSuffix(b buildInfo) string {
	switch {
	case b.Commit != "" && b.Date != "":
		return fmt.Sprintf(" (commit %s, built %s)", results.ShortHash(b.Commit), b.Date)
	case b.Commit != "":
		return fmt.Sprintf(" (commit %s)", results.ShortHash(b.Commit))
	case b.Date != "":
		return fmt.Sprintf(" (built %s)", b.Date)
	}
	return ""
}
