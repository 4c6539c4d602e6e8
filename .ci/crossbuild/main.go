// Command crossbuild is .ci/run's stand-in for a GoReleaser snapshot: it
// reads .goreleaser.yaml (the one description of a release), builds the
// gate binary for every platform it lists with the same environment, flags
// and stamped ldflags, packs each into the archive GoReleaser would name,
// and writes checksums.txt, metadata.json and artifacts.json in GoReleaser's
// shapes, so that .ci/releasecheck checks this directory as it would a real
// release. No SBOMs: those come from the release workflow, where GoReleaser
// runs for real.
//
// Why not GoReleaser itself: compiling it on a fresh 2-core machine takes
// about 12 minutes and its snapshot another 5 to 20; this takes about one
// minute a platform with a cold build cache and seconds with a warm one.
//
//	go run ./.ci/crossbuild [-config .goreleaser.yaml] dist
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"go.yaml.in/yaml/v3"
)

// config is the part of .goreleaser.yaml a snapshot build reads.
type config struct {
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
		Ignore  []struct {
			Goos   string `yaml:"goos"`
			Goarch string `yaml:"goarch"`
		} `yaml:"ignore"`
	} `yaml:"builds"`
	Archives []struct {
		IDs             []string `yaml:"ids"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		NameTemplate string   `yaml:"name_template"`
		Files        []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	Snapshot struct {
		VersionTemplate string `yaml:"version_template"`
	} `yaml:"snapshot"`
}

// artifact is one entry of artifacts.json, as GoReleaser writes it.
type artifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Type   string `json:"type"`
	Goos   string `json:"goos,omitempty"`
	Goarch string `json:"goarch,omitempty"`
}

// vars are the template variables GoReleaser's templates use here.
type vars struct {
	ProjectName, Version, Tag, FullCommit, ShortCommit, Date, CommitTimestamp string
	Os, Arch, Binary                                                          string
}

func main() {
	cfgPath := flag.String("config", ".goreleaser.yaml", "GoReleaser configuration")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: crossbuild [-config FILE] DIST")
		os.Exit(2)
	}
	if err := run(*cfgPath, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "crossbuild:", err)
		os.Exit(1)
	}
}

func run(cfgPath, dist string) error {
	raw, err := os.ReadFile(cfgPath)
	if err != nil {
		return err
	}
	var cfg config
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return fmt.Errorf("%s: %w", cfgPath, err)
	}
	if len(cfg.Builds) != 1 || len(cfg.Archives) != 1 {
		return fmt.Errorf("%s: want one build and one archive, found %d and %d (teach crossbuild the new shape)", cfgPath, len(cfg.Builds), len(cfg.Archives))
	}
	v, err := gitVars(cfg)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dist); err != nil {
		return err
	}
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	b, a := cfg.Builds[0], cfg.Archives[0]
	var arts []artifact
	for _, goos := range b.Goos {
		for _, goarch := range b.Goarch {
			if ignored(goos, goarch, b.Ignore) {
				continue
			}
			pv := v
			pv.Os, pv.Arch, pv.Binary = goos, goarch, b.Binary
			start := time.Now()
			bin, err := build(dist, goos, goarch, b.Main, b.Binary, b.Env, b.Flags, b.Ldflags, pv)
			if err != nil {
				return fmt.Errorf("%s/%s: %w", goos, goarch, err)
			}
			name, err := expand(a.NameTemplate, pv)
			if err != nil {
				return err
			}
			format := a.Formats[0]
			for _, o := range a.FormatOverrides {
				if o.Goos == goos {
					format = o.Formats[0]
				}
			}
			name += "." + format
			path := filepath.Join(dist, name)
			if err := pack(path, format, bin, a.Files); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			arts = append(arts, artifact{Name: name, Path: path, Type: "Archive", Goos: goos, Goarch: goarch})
			fmt.Printf("built %s in %.0fs\n", name, time.Since(start).Seconds())
		}
	}
	sumName, err := expand(cfg.Checksum.NameTemplate, v)
	if err != nil {
		return err
	}
	if cfg.Checksum.Algorithm != "sha256" {
		return fmt.Errorf("checksum algorithm %q: crossbuild knows sha256", cfg.Checksum.Algorithm)
	}
	if err := checksums(filepath.Join(dist, sumName), arts); err != nil {
		return err
	}
	arts = append(arts, artifact{Name: sumName, Path: filepath.Join(dist, sumName), Type: "Checksum"})
	if err := writeJSON(filepath.Join(dist, "artifacts.json"), arts); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dist, "metadata.json"), map[string]string{
		"project_name": cfg.ProjectName, "version": v.Version, "tag": v.Tag, "commit": v.FullCommit, "date": v.Date,
	})
}

func ignored(goos, goarch string, ignore []struct {
	Goos   string `yaml:"goos"`
	Goarch string `yaml:"goarch"`
}) bool {
	for _, i := range ignore {
		if i.Goos == goos && i.Goarch == goarch {
			return true
		}
	}
	return false
}

// gitVars reads the commit and the last tag, and expands the snapshot
// version the way GoReleaser does (incpatch of the last tag).
func gitVars(cfg config) (vars, error) {
	commit, err := git("rev-parse", "HEAD")
	if err != nil {
		return vars{}, err
	}
	ts, err := git("log", "-1", "--format=%ct")
	if err != nil {
		return vars{}, err
	}
	tag, err := git("describe", "--tags", "--abbrev=0")
	if err != nil || tag == "" {
		tag = "v0.0.0"
	}
	v := vars{
		ProjectName: cfg.ProjectName, Tag: tag, FullCommit: commit, ShortCommit: commit[:min(7, len(commit))],
		Date: time.Now().UTC().Format(time.RFC3339), CommitTimestamp: ts, Version: strings.TrimPrefix(tag, "v"),
	}
	if cfg.Snapshot.VersionTemplate != "" {
		if v.Version, err = expand(cfg.Snapshot.VersionTemplate, v); err != nil {
			return vars{}, err
		}
	}
	return v, nil
}

func git(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	return strings.TrimSpace(string(out)), err
}

// expand evaluates a GoReleaser template with the functions used here.
func expand(text string, v vars) (string, error) {
	t, err := template.New("").Option("missingkey=error").Funcs(template.FuncMap{
		"incpatch": incpatch,
		"envOrDefault": func(name, def string) string {
			if s := os.Getenv(name); s != "" {
				return s
			}
			return def
		},
	}).Parse(text)
	if err != nil {
		return "", fmt.Errorf("template %q: %w", text, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		return "", fmt.Errorf("template %q: %w", text, err)
	}
	return b.String(), nil
}

func incpatch(version string) (string, error) {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) != 3 {
		return "", fmt.Errorf("incpatch: %q is not MAJOR.MINOR.PATCH", version)
	}
	patch, err := strconv.Atoi(strings.SplitN(parts[2], "-", 2)[0])
	if err != nil {
		return "", fmt.Errorf("incpatch: %q: %w", version, err)
	}
	return fmt.Sprintf("%s.%s.%d", parts[0], parts[1], patch+1), nil
}

func build(dist, goos, goarch, main, binary string, env, flags, ldflags []string, v vars) (string, error) {
	var ld []string
	for _, l := range ldflags {
		s, err := expand(l, v)
		if err != nil {
			return "", err
		}
		ld = append(ld, s)
	}
	if goos == "windows" {
		binary += ".exe"
	}
	out := filepath.Join(dist, "build", goos+"_"+goarch, binary)
	args := append([]string{"build"}, flags...)
	args = append(args, "-ldflags="+strings.Join(ld, " "), "-o", out, main)
	cmd := exec.Command("go", args...)
	cmd.Env = append(append(os.Environ(), env...), "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", err
	}
	if ts, err := strconv.ParseInt(v.CommitTimestamp, 10, 64); err == nil {
		mt := time.Unix(ts, 0)
		_ = os.Chtimes(out, mt, mt) // mod_timestamp: reproducible archives
	}
	return out, nil
}

// pack writes the archive: the binary and the extra files at its root.
func pack(path, format, bin string, files []string) error {
	all := append([]string{bin}, files...)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	switch format {
	case "zip":
		z := zip.NewWriter(f)
		for _, p := range all {
			if err := addZip(z, p); err != nil {
				return err
			}
		}
		if err := z.Close(); err != nil {
			return err
		}
	case "tar.gz":
		gz := gzip.NewWriter(f)
		tw := tar.NewWriter(gz)
		for _, p := range all {
			if err := addTar(tw, p); err != nil {
				return err
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		if err := gz.Close(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("archive format %q: crossbuild knows tar.gz and zip", format)
	}
	return f.Close()
}

func addTar(tw *tar.Writer, p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	h, err := tar.FileInfoHeader(st, "")
	if err != nil {
		return err
	}
	h.Name = filepath.Base(p)
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	return copyFile(tw, p)
}

func addZip(z *zip.Writer, p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	h, err := zip.FileInfoHeader(st)
	if err != nil {
		return err
	}
	h.Name, h.Method = filepath.Base(p), zip.Deflate
	w, err := z.CreateHeader(h)
	if err != nil {
		return err
	}
	return copyFile(w, p)
}

func copyFile(w io.Writer, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

func checksums(path string, arts []artifact) error {
	var lines []string
	for _, a := range arts {
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+a.Name)
	}
	sort.Strings(lines)
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
