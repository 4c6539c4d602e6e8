package cli

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/goldenfile"
	"github.com/raggate/raggate/internal/judge/openaitest"
)

// TestTranscripts runs every testdata/transcripts/*.txt through Main in
// process and compares stdout, stderr and the exit code with the ones
// recorded there (see the README there for the format). On a mismatch the
// actual transcript is written next to it as NAME.txt.got; -update rewrites
// the transcripts instead.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			t.Parallel()
			runTranscript(t, file, root)
		})
	}
}

func runTranscript(t *testing.T, file, root string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseTranscript(string(data))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	dir := t.TempDir()
	sh := &transcriptShell{t: t, dir: dir, root: root, env: map[string]string{}}
	got := &transcript{comment: tr.comment}
	for _, s := range tr.sections {
		out := s
		switch {
		case s.name == "env":
			sh.setEnv(s.body)
		case s.name == "setup":
			sh.setup(s.body)
		case s.name == "judge":
			sh.startJudge(s.body)
		case s.name == "cmd":
			got.sections = append(got.sections, s)
			got.sections = append(got.sections, sh.gate(s.body)...)
			continue
		case isOutput(s.name):
			continue // replaced by the actual output of the preceding cmd
		default: // an input file, written into the temporary directory
			p := filepath.Join(dir, filepath.FromSlash(s.name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(sh.expand(s.body)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got.sections = append(got.sections, out)
	}
	goldenfile.Check(t, file, []byte(got.String()))
}

func isOutput(name string) bool { return name == "stdout" || name == "stderr" || name == "exit" }

// transcriptShell holds the state of one transcript: its temporary working
// directory and the environment variables the commands see.
type transcriptShell struct {
	t    *testing.T
	dir  string
	root string
	env  map[string]string
	// judgeURL is the base URL of the fake judge API ("" until a judge
	// section starts one).
	judgeURL string
}

// expand replaces $REPO (the repository root), $TMP (the working directory)
// and $JUDGE (the URL of the fake judge API) in a command line or input file.
func (sh *transcriptShell) expand(s string) string {
	return strings.NewReplacer("$REPO", sh.root, "$TMP", sh.dir, "$JUDGE", sh.judgeURL).Replace(s)
}

// startJudge starts the fake OpenAI-compatible API (internal/judge/openaitest)
// as the lines of a judge section configure it: "api-key KEY" (the only key
// it accepts) and "fault refusal|unauthorized|stall" (on every request).
func (sh *transcriptShell) startJudge(body string) {
	var opts []openaitest.Option
	var faults []openaitest.Fault
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case len(f) == 2 && f[0] == "api-key":
			opts = append(opts, openaitest.WithAPIKey(f[1]))
		case len(f) == 2 && f[0] == "fault" && judgeFaults[f[1]] != nil:
			faults = append(faults, judgeFaults[f[1]]().Times(-1))
		default:
			sh.t.Fatalf("judge: unknown line %q (want api-key KEY or fault %s)", line, strings.Join(slices.Sorted(maps.Keys(judgeFaults)), "|"))
		}
	}
	srv := openaitest.NewServer(sh.t, opts...)
	srv.Inject(faults...)
	sh.judgeURL = srv.URL
}

var judgeFaults = map[string]func() openaitest.Fault{
	"refusal":      openaitest.Refusal,
	"unauthorized": openaitest.Unauthorized,
	"stall":        openaitest.Stall,
}

func (sh *transcriptShell) setEnv(body string) {
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			sh.env[k] = sh.expand(v)
		}
	}
}

// setup runs the lines of a setup section: git commands (in the working
// directory, with a fixed identity and date), cp and rm.
func (sh *transcriptShell) setup(body string) {
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		args := strings.Fields(sh.expand(line))
		if len(args) == 0 {
			continue
		}
		switch args[0] {
		case "git":
			if _, err := exec.LookPath("git"); err != nil {
				sh.t.Skip("git not installed")
			}
			cmd := exec.Command("git", args[1:]...)
			cmd.Dir = sh.dir
			cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
				"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
				"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
				"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				sh.t.Fatalf("setup %s: %v\n%s", line, err, out)
			}
		case "cp":
			sh.copy(line, args[1:])
		case "rm":
			for _, p := range args[1:] {
				if err := os.RemoveAll(filepath.Join(sh.dir, p)); err != nil {
					sh.t.Fatal(err)
				}
			}
		default:
			sh.t.Fatalf("setup: unknown command %q (want git, cp or rm)", line)
		}
	}
}

// copy copies args[0] to args[1] (relative to the working directory).
func (sh *transcriptShell) copy(line string, args []string) {
	if len(args) != 2 {
		sh.t.Fatalf("setup %s: want cp SRC DST", line)
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		sh.t.Fatal(err)
	}
	dst := filepath.Join(sh.dir, args[1])
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		sh.t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		sh.t.Fatal(err)
	}
}

// gate runs one command line through Main and returns its output sections.
func (sh *transcriptShell) gate(line string) []section {
	args := splitArgs(sh.expand(line))
	if len(args) == 0 || args[0] != "gate" {
		sh.t.Fatalf("cmd %q: want a gate command line", line)
	}
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args[1:], Env{
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return sh.env[k] },
		Dir:    sh.dir,
	})
	return []section{
		{"stdout", sh.normalise(stdout.String())},
		{"stderr", sh.normalise(stderr.String())},
		{"exit", strconv.Itoa(code) + "\n"},
	}
}

// splitArgs splits a command line at spaces; text in single quotes is kept
// together: a space between quotes is a space, and two quotes with nothing
// between them an empty argument.
func splitArgs(line string) []string {
	var args []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args
}

// What legitimately varies between runs and machines: how long judging took,
// timestamps, and the hashes of commits made by setup.
var (
	durationRE = regexp.MustCompile(`\b(in|after|took) \d+(\.\d+)?(ns|µs|us|ms|s|m\d+(\.\d+)?s|h\d+m\d+(\.\d+)?s)\b`)
	dateRE     = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?`)
	commitRE   = regexp.MustCompile(`\bcommit [0-9a-f]{7,40}\b`)
	rateRE     = regexp.MustCompile(`\b\d+(\.\d+)? samples/s\b`)
)

// normalise replaces the temporary directory, the repository root,
// durations, timestamps, commit hashes and the version with fixed
// placeholders.
func (sh *transcriptShell) normalise(s string) string {
	s = strings.ReplaceAll(s, sh.dir, "$TMP")
	if sh.judgeURL != "" {
		s = strings.ReplaceAll(s, sh.judgeURL, "$JUDGE")
	}
	s = strings.ReplaceAll(s, sh.root, "$REPO")
	s = durationRE.ReplaceAllString(s, "$1 <duration>")
	s = dateRE.ReplaceAllString(s, "<time>")
	s = commitRE.ReplaceAllString(s, "commit <hash>")
	s = rateRE.ReplaceAllString(s, "<rate> samples/s")
	s = strings.ReplaceAll(s, "(raggate "+version()+")", "(raggate <version>)")
	s = strings.ReplaceAll(s, "gate "+version()+"\n", "gate <version>\n")
	s = strings.ReplaceAll(s, `"version": "`+version()+`"`, `"version": "<version>"`)
	s = strings.ReplaceAll(s, `"go": "`+runtime.Version()+`"`, `"go": "<go>"`)
	s = strings.ReplaceAll(s, `"platform": "`+runtime.GOOS+"/"+runtime.GOARCH+`"`, `"platform": "<os>/<arch>"`)
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n<no newline at end>\n"
	}
	return s
}

// A transcript is a txtar-like file: a comment, then sections that each
// start with a line "-- NAME --".
type transcript struct {
	comment  string
	sections []section
}

type section struct{ name, body string }

var sectionRE = regexp.MustCompile(`^-- (\S+) --$`)

func parseTranscript(s string) (*transcript, error) {
	tr := &transcript{}
	cur := &tr.comment
	for _, line := range strings.SplitAfter(s, "\n") {
		if m := sectionRE.FindStringSubmatch(strings.TrimSuffix(line, "\n")); m != nil {
			tr.sections = append(tr.sections, section{name: m[1]})
			cur = &tr.sections[len(tr.sections)-1].body
			continue
		}
		*cur += line
	}
	cmds := 0
	for _, sec := range tr.sections {
		if sec.name == "cmd" {
			cmds++
		}
	}
	if cmds == 0 {
		return nil, fmt.Errorf("no -- cmd -- section")
	}
	return tr, nil
}

func (tr *transcript) String() string {
	var b strings.Builder
	b.WriteString(tr.comment)
	for _, s := range tr.sections {
		fmt.Fprintf(&b, "-- %s --\n%s", s.name, s.body)
	}
	return b.String()
}
