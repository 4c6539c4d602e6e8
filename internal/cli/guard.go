package cli

import (
	"bytes"
	"io"
	"sync"
)

// commandGuard returns a writer that passes text on to w but never lets a
// line begin with "::" or the older "##[" (after blanks, which the runner
// skips): GitHub Actions reads such a line on stdout or stderr as a
// workflow command, and
// the gate's stderr quotes text it does not control (a target program's
// output, a server's reply, dataset values). The gate's own workflow
// commands go to stdout through ghaction, never through this writer. Such
// a line is prefixed with "| ".
func commandGuard(w io.Writer) io.Writer { return &guard{w: w, atStart: true} }

type guard struct {
	mu      sync.Mutex
	w       io.Writer
	atStart bool // the next byte starts a line
	pending []byte
}

func (g *guard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out bytes.Buffer
	for _, c := range p {
		if g.atStart {
			if c == ' ' || c == '\t' || c == ':' || c == '#' || c == '[' {
				// Hold the blanks and marks of a line start until it is
				// known whether they begin "::" or "##[".
				g.pending = append(g.pending, c)
				if bytes.HasSuffix(g.pending, []byte("::")) || bytes.HasSuffix(g.pending, []byte("##[")) {
					out.WriteString("| ")
					out.Write(g.pending)
					g.pending, g.atStart = nil, false
				}
				continue
			}
			out.Write(g.pending)
			g.pending, g.atStart = nil, false
		}
		out.WriteByte(c)
		if c == '\n' || c == '\r' {
			g.atStart = true
		}
	}
	if _, err := g.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
