package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionImageRE is what action.yml's runs.image must be: a published
// release image, pinned to an exact version.
var actionImageRE = regexp.MustCompile(`^docker://(ghcr\.io/[a-z0-9._-]+/raggate):(v(\d+)\.\d+\.\d+)$`)

type workflowStep struct {
	ID   string            `yaml:"id"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

type releaseWorkflow struct {
	On struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	} `yaml:"on"`
	Jobs map[string]struct {
		Steps []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

// filterRE turns a GitHub Actions tag filter pattern (*, **, +, ?, [...])
// into a regular expression.
func filterRE(t *testing.T, pattern string) *regexp.Regexp {
	t.Helper()
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			if strings.HasPrefix(pattern[i:], "**") {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString("[^/]*")
			}
		case '[':
			j := strings.IndexByte(pattern[i:], ']')
			if j < 0 {
				t.Fatalf("tag filter %q: unclosed [", pattern)
			}
			b.WriteString(pattern[i : i+j+1])
			i += j
		case '+', '?':
			b.WriteByte(c)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func readActionImage(t *testing.T) (image, repo, tag, major string) {
	t.Helper()
	var spec struct {
		Runs struct {
			Image string `yaml:"image"`
		} `yaml:"runs"`
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	m := actionImageRE.FindStringSubmatch(spec.Runs.Image)
	if m == nil {
		t.Fatalf("action.yml runs.image = %q, want docker://ghcr.io/OWNER/raggate:vX.Y.Z (a released image, never built on the user's runner)", spec.Runs.Image)
	}
	return spec.Runs.Image, m[1], m[2], "v" + m[3]
}

// action.yml runs the image that the release workflow publishes for the
// tag action.yml pins: the workflow triggers on that tag (not on the major
// tag it moves), reads the image from action.yml through
// .github/release-image.sh, pushes both the exact and the major tag of that
// image for amd64 and arm64 from the Dockerfile, and moves the major tag.
func TestActionImageMatchesReleaseWorkflow(t *testing.T) {
	_, repo, tag, major := readActionImage(t)

	b, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf releaseWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	matches := func(ref string) bool {
		for _, p := range wf.On.Push.Tags {
			if filterRE(t, p).MatchString(ref) {
				return true
			}
		}
		return false
	}
	if !matches(tag) {
		t.Errorf("release.yml tag filters %q do not match action.yml's tag %s: that image would never be published", wf.On.Push.Tags, tag)
	}
	if matches(major) {
		t.Errorf("release.yml tag filters %q match the major tag %s it moves", wf.On.Push.Tags, major)
	}

	var steps []workflowStep
	for _, j := range wf.Jobs {
		steps = append(steps, j.Steps...)
	}
	var sawImage, sawPush, sawMove bool
	for _, s := range steps {
		switch {
		case s.ID == "image":
			sawImage = strings.Contains(s.Run, `.github/release-image.sh "$GITHUB_REF_NAME"`)
		case strings.HasPrefix(s.Uses, "docker/build-push-action@"):
			tags := s.With["tags"]
			sawPush = s.With["file"] == "Dockerfile" && s.With["push"] == "true" &&
				strings.Contains(s.With["platforms"], "linux/amd64") && strings.Contains(s.With["platforms"], "linux/arm64") &&
				strings.Contains(tags, "${{ steps.image.outputs.image }}:${{ steps.image.outputs.version }}") &&
				strings.Contains(tags, "${{ steps.image.outputs.image }}:${{ steps.image.outputs.major }}") &&
				strings.Contains(s.With["build-args"], "VERSION=${{ steps.image.outputs.version }}")
		case strings.Contains(s.Run, `git push -f origin "refs/tags/$MAJOR"`):
			sawMove = s.Env["MAJOR"] == "${{ steps.image.outputs.major }}"
		}
	}
	if !sawImage || !sawPush || !sawMove {
		t.Errorf("release.yml: image from action.yml %v, multi-arch push of its exact and major tags %v, major tag moved %v", sawImage, sawPush, sawMove)
	}

	// The script the workflow runs agrees with action.yml, and refuses a
	// release whose action.yml pins another image.
	out, err := exec.Command("bash", filepath.Join(repoRoot, ".github", "release-image.sh"), tag).CombinedOutput()
	if err != nil {
		t.Fatalf("release-image.sh %s: %v\n%s", tag, err, out)
	}
	if want := "image=" + repo + "\nversion=" + tag + "\nmajor=" + major + "\n"; string(out) != want {
		t.Errorf("release-image.sh %s printed %q, want %q", tag, out, want)
	}
	for _, other := range []string{tag + "1", "v0.0.0-rc1", major} {
		out, err := exec.Command("bash", filepath.Join(repoRoot, ".github", "release-image.sh"), other).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "release-image.sh: ") {
			t.Errorf("release-image.sh %s: err %v, output %q; want a refusal", other, err, out)
		}
	}
}

// The release build and the Dockerfile stamp the variables `gate version`
// reads, and build static binaries.
func TestReleaseBuildsStampVersion(t *testing.T) {
	for _, f := range []string{".goreleaser.yaml", "Dockerfile"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"Version", "Commit", "Date"} {
			if !strings.Contains(string(b), "-X github.com/raggate/raggate/internal/cli."+v+"=") {
				t.Errorf("%s does not stamp cli.%s", f, v)
			}
		}
		if !strings.Contains(string(b), "CGO_ENABLED=0") {
			t.Errorf("%s does not build with CGO_ENABLED=0", f)
		}
	}
}
