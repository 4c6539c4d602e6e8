// Command releasecheck checks a release directory (GoReleaser's dist/, or
// the one .ci/crossbuild writes in its shapes): every
// checksum matches, every platform has its archive, each archive's gate
// binary is static (CGO_ENABLED=0, no ELF interpreter) for the platform its
// name says, and the one for this machine prints the stamped version and
// commit. Run by .ci/run after .ci/crossbuild:
//
//	go run ./.ci/releasecheck -sboms=false dist
package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// platforms are the release's targets (README "Install").
var platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"}

type artifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Type   string `json:"type"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
}

// wantSBOMs is false for .ci/crossbuild's directory, which has none.
var wantSBOMs = flag.Bool("sboms", true, "require one SBOM per binary (GoReleaser's release)")

func main() {
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: releasecheck [-sboms=false] DIST")
		os.Exit(2)
	}
	if err := check(flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "releasecheck:", err)
		os.Exit(1)
	}
}

func check(dist string) error {
	var meta struct{ Version, Commit string }
	if err := readJSON(filepath.Join(dist, "metadata.json"), &meta); err != nil {
		return err
	}
	var arts []artifact
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &arts); err != nil {
		return err
	}
	if err := checkSums(dist, arts); err != nil {
		return err
	}
	want := "v" + meta.Version
	seen := map[string]bool{}
	for _, a := range arts {
		if a.Type != "Archive" {
			continue
		}
		platform := a.Goos + "/" + a.Goarch
		seen[platform] = true
		if err := checkArchive(a, want, meta.Commit); err != nil {
			return fmt.Errorf("%s: %w", a.Path, err)
		}
		fmt.Printf("ok  %s (%s)\n", a.Name, platform)
	}
	for _, p := range platforms {
		if !seen[p] {
			return fmt.Errorf("no archive for %s", p)
		}
	}
	sboms := 0
	for _, a := range arts {
		if a.Type == "SBOM" {
			sboms++
		}
	}
	if *wantSBOMs && sboms != len(platforms) {
		return fmt.Errorf("%d SBOMs, want one per binary (%d)", sboms, len(platforms))
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// checkSums verifies every line of the checksums file, and that it lists
// every archive.
func checkSums(dist string, arts []artifact) error {
	var sums string
	for _, a := range arts {
		if a.Type == "Checksum" {
			sums = a.Path
		}
	}
	if sums == "" {
		return fmt.Errorf("no checksums file among the artifacts")
	}
	f, err := os.Open(sums)
	if err != nil {
		return err
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return fmt.Errorf("%s: bad line %q", sums, sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			return err
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != sum {
			return fmt.Errorf("%s: checksum of %s does not match", sums, name)
		}
		listed[name] = true
	}
	for _, a := range arts {
		if a.Type == "Archive" && !listed[a.Name] {
			return fmt.Errorf("%s does not list %s", sums, a.Name)
		}
	}
	return sc.Err()
}

// checkArchive extracts the gate binary and checks how it was built; on
// this machine's platform it also runs it.
func checkArchive(a artifact, version, commit string) error {
	bin, err := extractGate(a.Path)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(bin))
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return err
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		return fmt.Errorf("not a static -trimpath build: CGO_ENABLED=%q -trimpath=%q", settings["CGO_ENABLED"], settings["-trimpath"])
	}
	if settings["GOOS"] != a.Goos || settings["GOARCH"] != a.Goarch {
		return fmt.Errorf("built for %s/%s", settings["GOOS"], settings["GOARCH"])
	}
	if a.Goos == "linux" {
		if err := noInterpreter(bin); err != nil {
			return err
		}
	}
	if a.Goos != runtime.GOOS || a.Goarch != runtime.GOARCH {
		return nil
	}
	return runVersion(bin, version, commit)
}

func noInterpreter(bin string) error {
	f, err := elf.Open(bin)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("dynamically linked (has an ELF interpreter)")
		}
	}
	return nil
}

func runVersion(bin, version, commit string) error {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return fmt.Errorf("gate version: %w", err)
	}
	want := fmt.Sprintf("gate %s (commit %s, built ", version, commit[:min(12, len(commit))])
	if !strings.HasPrefix(string(out), want) {
		return fmt.Errorf("gate version printed %q, want it to start with %q", out, want)
	}
	plain := bytes.TrimSpace(out)
	out, err = exec.Command(bin, "version", "--json").Output()
	if err != nil {
		return fmt.Errorf("gate version --json: %w", err)
	}
	var b struct{ Version, Commit, Date string }
	if err := json.Unmarshal(out, &b); err != nil || b.Version != version || b.Commit != commit || b.Date == "" {
		return fmt.Errorf("gate version --json printed %s (%v), want version %s, commit %s and a date", out, err, version, commit)
	}
	fmt.Printf("    runs here: %s\n", plain)
	return nil
}

// extractGate writes the archive's gate (or gate.exe) into a temporary
// directory and returns its path.
func extractGate(path string) (string, error) {
	dir, err := os.MkdirTemp("", "releasecheck")
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, "gate")
	var data []byte
	if strings.HasSuffix(path, ".zip") {
		data, err = fromZip(path)
	} else {
		data, err = fromTarGz(path)
	}
	if err == nil && data == nil {
		err = fmt.Errorf("no gate binary in the archive")
	}
	if err == nil {
		err = os.WriteFile(dst, data, 0o755)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dst, nil
}

func isGate(name string) bool { n := filepath.Base(name); return n == "gate" || n == "gate.exe" }

func fromZip(path string) ([]byte, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	for _, f := range z.File {
		if isGate(f.Name) {
			r, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return io.ReadAll(r)
		}
	}
	return nil, nil
}

func fromTarGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if isGate(h.Name) {
			return io.ReadAll(tr)
		}
	}
}
