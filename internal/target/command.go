package target

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/raggate/raggate/metrics"
)

// maxDeaths is how many processes in a row may die without answering
// before a command target gives up: a program that crashes at start must
// not be restarted for every sample.
const maxDeaths = 3

// Command is a pipeline run as a program (through the shell, so
// "python answer.py" works). It reads one JSON request per line on stdin
// and writes one JSON reply per line on stdout; stderr is its log. A
// long-running process answers its requests one at a time, in order; up
// to Processes run at once, started when needed. A process that exits or
// stops answering within the timeout is killed and replaced. With
// PerSample, every sample gets a process of its own, whose whole stdout
// is the reply.
type Command struct {
	Line      string
	Dir       string   // working directory ("" = the current one)
	Env       []string // nil = the current environment
	Body      *Template
	Paths     Paths
	PerSample bool
	Processes int // default 1

	mu      sync.Mutex
	shifted *OutOfStepError // the answers of processes found out of step
	idle    []*proc
	live    int
	deaths  int
	last    string // the last death's reason
	free    chan struct{}
	closed  bool
}

// Call sends the sample's request and reads the reply.
func (c *Command) Call(ctx context.Context, s *metrics.Sample) (Reply, error) {
	body := c.Body
	if body == nil {
		body, _ = ParseTemplate(DefaultBody)
	}
	req, err := body.Render(s)
	if err != nil {
		return Reply{}, permanent(0, "request: %v", err)
	}
	if c.PerSample {
		return c.once(ctx, req, s)
	}
	p, err := c.acquire(ctx)
	if err != nil {
		return Reply{}, err
	}
	line, err := p.ask(ctx, req)
	if err != nil {
		c.discard(p, err)
		return Reply{}, err
	}
	r, err := c.extract(line, s)
	if err != nil {
		if errors.Is(err, errWrongID) {
			// Out of step: its earlier answers are suspect, and a new
			// process starts in step.
			p.outOfStep = err.Error()
			c.discard(p, err)
			return Reply{}, err
		}
		c.release(p)
		return Reply{}, err
	}
	p.answered = append(p.answered, s.ID)
	c.release(p)
	return r, nil
}

// extract reads a reply of the program for sample s: its id, when it
// names one, must be s's.
func (c *Command) extract(data []byte, s *metrics.Sample) (Reply, error) {
	r, err := c.Paths.Extract(data)
	if err == nil {
		err = c.Paths.CheckID(r, s.ID, true)
	}
	if err != nil {
		e := permanent(0, "%v", err)
		e.wrapped = err
		return Reply{}, e
	}
	return r, nil
}

// acquire returns an idle process, or starts one when fewer than
// Processes run, or waits for one to be released.
func (c *Command) acquire(ctx context.Context) (*proc, error) {
	for {
		c.mu.Lock()
		if c.free == nil {
			c.free = make(chan struct{}, 1)
		}
		if c.deaths >= maxDeaths {
			err := permanent(0, "gave up on the target command: %s; the last: %s", c.deathCount(), c.last)
			c.mu.Unlock()
			return nil, err
		}
		if n := len(c.idle); n > 0 {
			p := c.idle[n-1]
			c.idle = c.idle[:n-1]
			c.mu.Unlock()
			return p, nil
		}
		if c.live < max(1, c.Processes) && !c.closed {
			c.live++
			c.mu.Unlock()
			p, err := c.start()
			if err != nil {
				c.discard(nil, err)
				return nil, err
			}
			return p, nil
		}
		free := c.free
		c.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return nil, transient(0, "no process free: %v", ctx.Err())
		}
	}
}

// deathCount words c.deaths (c.mu held): the rule is maxDeaths in a row,
// but processes already started when the last of them died may die too.
func (c *Command) deathCount() string {
	if c.deaths <= maxDeaths {
		return fmt.Sprintf("%d processes in a row exited without answering", c.deaths)
	}
	return fmt.Sprintf("%d processes in a row exited without answering (no new one is started after %d; the other %d had already started, up to --target-concurrency run at once)",
		c.deaths, maxDeaths, c.deaths-maxDeaths)
}

func (c *Command) signal() {
	select {
	case c.free <- struct{}{}:
	default:
	}
}

func (c *Command) release(p *proc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deaths = 0
	c.idle = append(c.idle, p)
	c.signal()
}

// discard kills p (nil: a process that did not start) after err.
func (c *Command) discard(p *proc, err error) {
	if p != nil {
		p.kill()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live--
	if p != nil {
		c.checkStep(p)
	}
	var ce *CallError
	if errors.As(err, &ce) && ce.exited {
		c.deaths++
		c.last = ce.Reason
	}
	c.signal()
}

// checkStep records the answers of a process found out of step (c.mu
// held).
func (c *Command) checkStep(p *proc) {
	if p.outOfStep == "" || len(p.answered) == 0 {
		return
	}
	if c.shifted == nil {
		c.shifted = &OutOfStepError{Line: c.Line, Reason: p.outOfStep}
	}
	c.shifted.IDs = append(c.shifted.IDs, p.answered...)
}

// Close stops every process. A process that wrote more lines than it was
// sent requests (found when it stops: a line left after its last reply)
// was out of step, so none of its answers can be matched to its
// questions: Close then returns an *OutOfStepError naming the samples it
// answered, which the caller must not use.
func (c *Command) Close() error {
	c.mu.Lock()
	idle := c.idle
	c.idle, c.closed = nil, true
	c.mu.Unlock()
	for _, p := range idle {
		if extra := p.stop(); extra != nil {
			p.outOfStep = fmt.Sprintf("it wrote a line after its last reply: %s", snippet(extra))
		}
		c.mu.Lock()
		c.checkStep(p)
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shifted != nil {
		return c.shifted
	}
	return nil
}

// OutOfStepError names the samples answered by command target processes
// that wrote more reply lines than requests (a startup banner or a debug
// line on stdout): their replies cannot be matched to their questions.
type OutOfStepError struct {
	Line   string   // the command
	Reason string   // what gave the process away
	IDs    []string // the samples it answered
}

func (e *OutOfStepError) Error() string {
	return fmt.Sprintf("the target command %q wrote more lines than it was sent requests (%s), so its replies cannot be matched to its questions: the %d answers of such processes are not used; write exactly one line per request on stdout (logs go to stderr)",
		e.Line, e.Reason, len(e.IDs))
}

// Call returns the error as the failure of one of the samples' calls.
func (e *OutOfStepError) Call() error { return permanent(0, "%s", e.Error()) }

// shell returns the command running line through the shell.
func shell(ctx context.Context, line string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		return exec.CommandContext(ctx, "cmd", "/C", line)
	}
	return exec.CommandContext(ctx, "sh", "-c", line)
}

// once runs one process for one request: the request on stdin, the reply
// is its stdout.
func (c *Command) once(ctx context.Context, req []byte, s *metrics.Sample) (Reply, error) {
	cmd := shell(ctx, c.Line)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin = bytes.NewReader(append(req, '\n'))
	stdout := &capped{limit: maxReply, full: func() { killGroup(cmd) }}
	stderr := &tail{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return Reply{}, transient(0, "no reply: %v", ctx.Err())
	}
	if stdout.over {
		return Reply{}, permanent(0, "reply larger than %d MiB: the target command %q was stopped", maxReply>>20, c.Line)
	}
	if err != nil {
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return Reply{}, transient(code, "the target command %q failed (%v)%s", c.Line, err, stderr.say())
	}
	return c.extract(stdout.buf.Bytes(), s)
}

// capped keeps up to limit bytes; past it, it calls full once (which
// stops the writer) and refuses the rest.
type capped struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
	full  func()
	over  bool
}

func (w *capped) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over {
		return 0, errTooLarge
	}
	if w.buf.Len()+len(p) > w.limit {
		w.over = true
		w.full()
		return 0, errTooLarge
	}
	return w.buf.Write(p)
}

var errTooLarge = errors.New("reply too large")

// proc is one long-running process of a command target.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *tail
	line   string
	exited chan struct{}
	// outFile is the read end of the process's stdout (p.out reads it).
	outFile *os.File
	lines   chan lineResult // the lines of stdout, from read
	quit    chan struct{}   // closed when the process is stopped
	once    sync.Once

	// answered are the samples whose replies came from this process;
	// outOfStep, once set, says why they cannot be trusted.
	answered  []string
	outOfStep string
}

type lineResult struct {
	line []byte
	err  error
}

func (c *Command) start() (*proc, error) {
	cmd := shell(context.Background(), c.Line)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	p := &proc{cmd: cmd, stderr: &tail{}, line: c.Line, exited: make(chan struct{}), lines: make(chan lineResult, 1), quit: make(chan struct{})}
	cmd.Stderr = p.stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, permanent(0, "target command: %v", err)
	}
	// Our own pipe, not StdoutPipe: Wait closes a StdoutPipe as soon as
	// the process exits, which can drop the last line it wrote before the
	// reader has read it (the extra line that shows a process out of
	// step). The reader reads this one to its end and closes it.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, permanent(0, "target command: %v", err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		_ = stdout.Close()
		_ = w.Close()
		return nil, permanent(0, "cannot start the target command %q: %v", c.Line, err)
	}
	_ = w.Close() // the child holds its copy
	p.out = bufio.NewReaderSize(stdout, 64<<10)
	p.outFile = stdout
	go func() { _ = cmd.Wait(); close(p.exited) }()
	go p.read()
	return p, nil
}

// read passes the process's stdout on, a line at a time, as it comes: a
// line that arrives while no request is waiting is seen as such (ask).
func (p *proc) read() {
	defer p.outFile.Close()
	for {
		line, err := readLine(p.out)
		select {
		case p.lines <- lineResult{line, err}:
		case <-p.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// ask writes one request line and reads one reply line. A line already
// waiting was written before the request: it is not the reply, and the
// process's replies can no longer be matched to its requests.
func (p *proc) ask(ctx context.Context, req []byte) ([]byte, error) {
	select {
	case r := <-p.lines:
		if r.err != nil {
			return nil, p.died(r.err)
		}
		p.outOfStep = "it wrote a line before it was sent a request: " + snippet(r.line)
		return nil, permanent(0, "the target command %q wrote a line before it was sent a request (one reply line per request; logs go to stderr): %s", p.line, snippet(r.line))
	default:
	}
	written := make(chan error, 1)
	go func() {
		_, err := p.stdin.Write(append(req, '\n'))
		written <- err
	}()
	for {
		select {
		case err := <-written:
			if err != nil {
				return nil, p.died(err)
			}
			written = nil
		case r := <-p.lines:
			if r.err != nil {
				return nil, p.died(r.err)
			}
			if written != nil {
				// A line came before the request was all written (a
				// banner the process wrote first, say): the request must
				// still reach the process, so that the reply it owes shows
				// when it stops (Close) and the line is found out of step.
				select {
				case err := <-written:
					if err != nil {
						return nil, p.died(err)
					}
				case <-ctx.Done():
					return nil, transient(0, "no reply: %v (the process was stopped)", ctx.Err())
				}
			}
			return r.line, nil
		case <-ctx.Done():
			return nil, transient(0, "no reply: %v (the process was stopped)", ctx.Err())
		}
	}
}

// died describes a process that could not answer: its exit status and the
// end of its stderr.
func (p *proc) died(err error) error {
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		e := transient(0, "the target command %q stopped answering (%v)%s", p.line, err, p.stderr.say())
		e.exited = true
		return e
	}
	e := transient(p.cmd.ProcessState.ExitCode(), "the target command %q exited (%s) before replying%s", p.line, p.cmd.ProcessState, p.stderr.say())
	e.exited = true
	return e
}

// readLine reads one non-empty line (at most maxReply bytes).
func readLine(r *bufio.Reader) ([]byte, error) {
	for {
		var buf []byte
		for {
			chunk, isPrefix, err := r.ReadLine()
			if err != nil {
				return nil, err
			}
			buf = append(buf, chunk...)
			if len(buf) > maxReply {
				return nil, fmt.Errorf("reply line longer than %d MiB", maxReply>>20)
			}
			if !isPrefix {
				break
			}
		}
		if len(bytes.TrimSpace(buf)) > 0 {
			return buf, nil
		}
	}
}

// stop closes stdin (a well-behaved program exits at end of input) and
// kills the process if it does not exit within a second. It returns the
// first line the process wrote after its last reply, if any: a process in
// step has nothing left to say.
func (p *proc) stop() (extra []byte) {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		p.kill()
	}
	// The reader passes on what was left in the pipe, then its end.
	timeout := time.After(time.Second)
drain:
	for {
		select {
		case r := <-p.lines:
			if r.err != nil {
				break drain
			}
			if extra == nil {
				extra = r.line
			}
		case <-timeout:
			break drain
		}
	}
	p.once.Do(func() { close(p.quit) })
	return extra
}

func (p *proc) kill() {
	killGroup(p.cmd)
	_ = p.stdin.Close()
	p.once.Do(func() { close(p.quit) })
}

// tail keeps the last 2 KiB a process wrote to stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if n := len(t.buf); n > 2048 {
		t.buf = t.buf[n-2048:]
	}
	return len(b), nil
}

// say returns "; stderr: ..." with the last lines, or "".
func (t *tail) say() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && len(s) > 300 {
		s = s[max(0, len(s)-300):]
	}
	return "; its stderr ends: " + OneLine(s)
}

// OneLine makes a program's output (its stderr, a reply) safe to quote in
// one line of the gate's log: line breaks become " ⏎ " and other control
// characters a space, so that the quoted text can never start a line (a
// "::" workflow command in GitHub Actions) or move the cursor.
func OneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r':
			return '⏎'
		case r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			return ' '
		}
		return r
	}, s)
}
