package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// FlagReference writes the reference of every flag of every command, in
// markdown: docs/flags.md is this output (a test fails when it is stale).
func FlagReference(w io.Writer) error {
	fmt.Fprint(w, "# Flags\n\n<!-- Generated from the flag definitions by `go test ./internal/cli -run TestFlagReference -update`; do not edit. -->\n\n")
	fmt.Fprint(w, "Every flag of every `gate` command. `gate help CMD` shows the flags ticked in the `gate help` column; `gate help CMD --all` lists every one.\n")
	fmt.Fprint(w, "The flags ticked in the `judge:` column are also accepted, by the same name, from the `judge:` section of a `--judge-config` file; a flag given on the command line wins.\n")
	for _, name := range referenceCommands() {
		var fs *flag.FlagSet
		env := Env{Stdout: io.Discard, Stderr: io.Discard, onFlags: func(_ string, f *flag.FlagSet) { fs = f }}
		Main(context.Background(), append(strings.Fields(name), "-h"), env)
		if fs == nil {
			return fmt.Errorf("gate %s defines no flags", name)
		}
		fmt.Fprintf(w, "\n## gate %s\n\n", name)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			fmt.Fprint(w, "No flags.\n")
			continue
		}
		fmt.Fprint(w, "| flag | default | `gate help` | `judge:` | |\n|---|---|---|---|---|\n")
		fs.VisitAll(func(f *flag.Flag) {
			arg, usage := flag.UnquoteUsage(f)
			def := f.DefValue
			if def != "" && def != "0" && def != "false" && def != "[]" {
				def = "`" + def + "`"
			} else {
				def = ""
			}
			flagText := "`--" + f.Name
			if arg != "" {
				flagText += " " + arg
			}
			fmt.Fprintf(w, "| %s` | %s | %s | %s | %s |\n", flagText, def, mark(n <= maxShortHelp || shortHelp[f.Name]), mark(judgeFileKeys[f.Name] && fs.Lookup("judge-config") != nil), strings.ReplaceAll(usage, "|", "\\|"))
		})
	}
	return nil
}

// referenceCommands are the commands with flags, as typed.
func referenceCommands() []string {
	var out []string
	for _, c := range commands() {
		switch {
		case c.run == nil:
		case c.name == "baseline":
			out = append(out, "baseline get", "baseline put")
		default:
			out = append(out, c.name)
		}
	}
	return out
}

// mark is the reference's tick.
func mark(b bool) string {
	if b {
		return "✓"
	}
	return ""
}
