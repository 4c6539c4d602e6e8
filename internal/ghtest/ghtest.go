// Package ghtest is an in-process fake of the parts of the GitHub REST API
// that raggate uses, served by net/http/httptest: the authenticated user
// (REST /user and GraphQL's viewer), issue comments (with Link
// pagination), branches, commits and compare, the contents API (with
// blob-sha conflict checks), git refs, trees, commits and blobs.
//
// It behaves like the real service where raggate depends on the behaviour:
// status codes, error bodies ({"message", "documentation_url", "status"}),
// Link headers with rel="next"/"last", per_page capped at 100, 201 on
// create, 409 for a stale blob sha and 422 for a missing one, 403 "Resource
// not accessible by integration" for read-only tokens and for GET /user
// with an integration token, GraphQL's viewer (which does answer
// integration tokens, with the "<slug>[bot]" login), and secondary rate
// limits (403 or 429 with retry-after), injected into the next requests
// (FailNext) or into the requests of one endpoint (FailMatching).
// Repositories are created on first use with default branch "main". The
// server is safe for concurrent use and records every request.
//
// Typical use:
//
//	s := ghtest.NewServer(t)
//	s.AddComment("octo/repo", 7, ghtest.User("someone"), "hello")
//	client, _ := ghapi.NewClient("token", s.URL, s.HTTPClient())
//	... // exercise the code
//	if n := s.Count("POST", "/repos/octo/repo/issues/7/comments"); n != 1 { ... }
//
// With the Enterprise option the API is served under /api/v3/ like GitHub
// Enterprise Server, and s.URL ends in /api/v3/.
package ghtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// Identity is a GitHub account: the owner of a token or a comment author.
type Identity struct {
	Login string
	ID    int64
	// Type is "User" or "Bot".
	Type string
}

// DefaultUser is the identity of the fake's token in personal-access-token
// mode (the default).
var DefaultUser = Identity{Login: "raggate-ci", ID: 1001, Type: "User"}

// ActionsBot is the identity behind the GITHUB_TOKEN of a workflow run.
var ActionsBot = Identity{Login: "github-actions[bot]", ID: 41898282, Type: "Bot"}

// User returns a "User" identity with the given login and an id derived
// from it.
func User(login string) Identity {
	var id int64 = 5000
	for _, c := range login {
		id = id*31 + int64(c)
	}
	if id < 0 {
		id = -id
	}
	return Identity{Login: login, ID: id%1_000_000_000 + 2000, Type: "User"}
}

// Fault is a failure the server injects into upcoming requests.
type Fault int

const (
	// SecondaryRateLimit answers 403 with retry-after and the message
	// "You have exceeded a secondary rate limit".
	SecondaryRateLimit Fault = iota + 1
	// SecondaryRateLimit429 is SecondaryRateLimit with status 429.
	SecondaryRateLimit429
	// PrimaryRateLimit answers 403 with x-ratelimit-remaining: 0 and an
	// x-ratelimit-reset RetryAfter from now.
	PrimaryRateLimit
	// ServerError answers 502 Bad Gateway (GitHub's usual transient error).
	ServerError
)

// Request is a recorded request.
type Request struct {
	Method string
	// Path is the URL path without the Enterprise prefix, e.g.
	// "/repos/o/r/issues/1/comments".
	Path string
	// RawPath is the path as received, including any prefix.
	RawPath  string
	RawQuery string
	Header   http.Header
	Body     []byte
	// Status is the status code of the response (0 while in flight).
	Status int
}

// Comment is an issue or pull request comment held by the server.
type Comment struct {
	ID        int64
	Issue     int
	Body      string
	User      Identity
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Option configures a Server.
type Option func(*Server)

// Enterprise serves the API under /api/v3/, like GitHub Enterprise Server;
// requests outside the prefix get 404.
func Enterprise() Option { return func(s *Server) { s.prefix = "/api/v3" } }

// WithToken makes the server require "Authorization: Bearer <token>" (or
// "token <token>"); other requests get 401 "Bad credentials".
func WithToken(token string) Option { return func(s *Server) { s.token = token } }

// Server is the fake. Its methods seed and inspect state; all are safe for
// concurrent use.
type Server struct {
	// URL is the API base URL with a trailing slash, e.g.
	// "http://127.0.0.1:41234/" or "http://127.0.0.1:41234/api/v3/".
	URL string
	// ServerURL is the web URL used in html_url fields.
	ServerURL string

	srv    *httptest.Server
	prefix string
	token  string
	mux    *http.ServeMux

	mu            sync.Mutex
	pulls         map[string]map[int]pull
	identity      Identity
	integration   bool
	readOnly      bool
	faults        []Fault
	targeted      []*targetedFault
	retryAfter    time.Duration
	contentsLimit int
	repos         map[string]*repo
	nextID        int64
	requests      []*Request
	hook          func(*http.Request)
	now           time.Time
}

// NewServer starts a fake GitHub API server that is closed when the test
// ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{
		identity:      DefaultUser,
		retryAfter:    time.Second,
		contentsLimit: 1 << 20,
		repos:         map[string]*repo{},
		nextID:        1_000_000_000,
		now:           time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
	}
	for _, o := range opts {
		o(s)
	}
	s.mux = http.NewServeMux()
	s.routes()
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL + s.prefix + "/"
	s.ServerURL = s.srv.URL
	return s
}

// HTTPClient returns an http.Client that talks to the server.
func (s *Server) HTTPClient() *http.Client { return s.srv.Client() }

// Client returns a go-github client for the server without authentication
// or retries (useful to read state or in tests of code that takes a
// *github.Client).
func (s *Server) Client() *github.Client {
	c, err := github.NewClient(s.srv.Client()).WithEnterpriseURLs(s.URL, s.URL)
	if err != nil {
		panic(err)
	}
	if s.prefix == "" {
		// WithEnterpriseURLs appends /api/v3/ to hosts that are not api.*;
		// this server has no prefix.
		c.BaseURL.Path = "/"
		c.UploadURL.Path = "/"
	}
	return c
}

// SetIdentity puts the server in personal-access-token mode: GET /user
// returns id and writes are authored by id.
func (s *Server) SetIdentity(id Identity) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.identity = id
	s.integration = false
}

// UseIntegrationToken puts the server in GITHUB_TOKEN mode: GET /user
// answers 403 "Resource not accessible by integration", GraphQL's viewer
// is bot, and writes are authored by bot (ActionsBot for the workflow
// token, or an app's "<slug>[bot]" for an installation token of
// actions/create-github-app-token).
func (s *Server) UseIntegrationToken(bot Identity) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.identity = bot
	s.integration = true
}

// SetReadOnly makes every write (POST, PATCH, PUT, DELETE) answer 403
// "Resource not accessible by integration", like the read-only token of a
// pull request from a fork.
func (s *Server) SetReadOnly(readOnly bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readOnly = readOnly
}

// FailNext makes the next n requests fail with f.
func (s *Server) FailNext(n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, f)
	}
}

// targetedFault fails the requests with a method and path prefix.
type targetedFault struct {
	method, prefix string
	left           int // < 0: every matching request
	fault          Fault
}

// FailMatching makes the next n requests with the method (any when empty)
// and a path starting with pathPrefix (without the Enterprise prefix) fail
// with f; n < 0 fails all of them. Other requests are served normally.
func (s *Server) FailMatching(method, pathPrefix string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.targeted = append(s.targeted, &targetedFault{method: method, prefix: pathPrefix, left: n, fault: f})
}

// takeFault returns the fault for a request, if any: a matching targeted
// fault first, else the next of FailNext. Call with s.mu held.
func (s *Server) takeFault(method, path string) Fault {
	for _, tf := range s.targeted {
		if tf.left != 0 && (tf.method == "" || tf.method == method) && strings.HasPrefix(path, tf.prefix) {
			if tf.left > 0 {
				tf.left--
			}
			return tf.fault
		}
	}
	var f Fault
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	return f
}

// SetRetryAfter sets the wait announced by rate-limit faults (default 1s;
// whole seconds).
func (s *Server) SetRetryAfter(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retryAfter = d
}

// SetContentsLimit sets the size above which the contents API returns
// files without content (encoding "none"), like GitHub does above 1 MB.
func (s *Server) SetContentsLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.contentsLimit = n
}

// OnRequest sets a function called with every request before it is
// handled, outside the server's lock: it may call the server's methods, for
// instance to simulate a concurrent writer. nil removes it.
func (s *Server) OnRequest(f func(*http.Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = f
}

// Requests returns the recorded requests in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
	}
	return out
}

// Statuses returns the response status codes of the recorded requests with
// the method and a path equal to path (without the Enterprise prefix).
func (s *Server) Statuses(method, path string) []int {
	var out []int
	for _, r := range s.Requests() {
		if r.Method == method && r.Path == path {
			out = append(out, r.Status)
		}
	}
	return out
}

// Count returns how many recorded requests have the method (any when
// empty) and a path starting with pathPrefix (without the Enterprise
// prefix).
func (s *Server) Count(method, pathPrefix string) int {
	n := 0
	for _, r := range s.Requests() {
		if (method == "" || r.Method == method) && strings.HasPrefix(r.Path, pathPrefix) {
			n++
		}
	}
	return n
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// AddRepo creates (or updates) a repository "owner/name" with the given
// default branch.
func (s *Server) AddRepo(fullName, defaultBranch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(fullName).defaultBranch = defaultBranch
}

// AddComment adds a comment by author to issue (or pull request) number
// issue of repository fullName and returns its id.
func (s *Server) AddComment(fullName string, issue int, author Identity, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addComment(s.repo(fullName), issue, author, body).ID
}

// Comments returns the comments of an issue in creation order.
func (s *Server) Comments(fullName string, issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.repo(fullName).issues[issue] {
		out = append(out, *c)
	}
	return out
}

// Commit adds a commit on branch (parent: the branch head, if any) that
// changes nothing and returns its sha. The branch is created if missing.
func (s *Server) Commit(fullName, branch, message string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(fullName)
	head := r.refs["refs/heads/"+branch]
	tree := emptyTree
	var parents []string
	if head != "" {
		tree = r.commits[head].tree
		parents = []string{head}
	}
	c := s.newCommit(r, message, tree, parents)
	r.refs["refs/heads/"+branch] = c.sha
	return c.sha
}

// History adds n commits on branch and returns their shas, oldest first.
func (s *Server) History(fullName, branch string, n int) []string {
	shas := make([]string, n)
	for i := range shas {
		shas[i] = s.Commit(fullName, branch, fmt.Sprintf("commit %d on %s", i+1, branch))
	}
	return shas
}

// AddCommit adds a commit with the given parents (and the first parent's
// tree) without moving any branch, and returns its sha; use it to build
// merges and diverged histories.
func (s *Server) AddCommit(fullName, message string, parents ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(fullName)
	tree := emptyTree
	if len(parents) > 0 {
		if p := r.commits[parents[0]]; p != nil {
			tree = p.tree
		}
	}
	return s.newCommit(r, message, tree, parents).sha
}

// SetBranch points branch at sha.
func (s *Server) SetBranch(fullName, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(fullName).refs["refs/heads/"+branch] = sha
}

// BranchHead returns the sha branch points at, or "".
func (s *Server) BranchHead(fullName, branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repo(fullName).refs["refs/heads/"+branch]
}

// PutFile commits content at path on branch (creating the branch as an
// orphan when missing) and returns the file's blob sha.
func (s *Server) PutFile(fullName, branch, path string, content []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(fullName)
	head := r.refs["refs/heads/"+branch]
	files := map[string]string{}
	var parents []string
	if head != "" {
		files = r.treeFiles(r.commits[head].tree)
		parents = []string{head}
	}
	blob := r.addBlob(content)
	files[path] = blob
	c := s.newCommit(r, "ghtest: put "+path, r.addTree(files), parents)
	r.refs["refs/heads/"+branch] = c.sha
	return blob
}

// File returns the content of path on branch.
func (s *Server) File(fullName, branch, path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(fullName)
	head := r.refs["refs/heads/"+branch]
	if head == "" {
		return nil, false
	}
	blob, ok := r.treeFiles(r.commits[head].tree)[path]
	if !ok {
		return nil, false
	}
	return append([]byte(nil), r.blobs[blob]...), true
}

// Paths returns the paths of the files on branch, sorted.
func (s *Server) Paths(fullName, branch string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(fullName)
	head := r.refs["refs/heads/"+branch]
	if head == "" {
		return nil
	}
	var out []string
	for p := range r.treeFiles(r.commits[head].tree) {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Parents returns the parent shas of a commit.
func (s *Server) Parents(fullName, sha string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.repo(fullName).commits[sha]; c != nil {
		return append([]string(nil), c.parents...)
	}
	return nil
}

// serve records the request, applies the hook, auth and faults, and
// dispatches to the routes. Its length is the fake's route table: one case
// per GitHub endpoint it imitates, kept in one place so a reader sees every
// endpoint the tests rely on.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	path := r.URL.Path
	inPrefix := s.prefix == "" || strings.HasPrefix(path, s.prefix+"/")
	path = strings.TrimPrefix(path, s.prefix)
	if s.prefix != "" && r.URL.Path == "/api/graphql" {
		// GitHub Enterprise Server serves GraphQL beside the REST prefix.
		inPrefix, path = true, "/graphql"
	}

	rec := &Request{
		Method: r.Method, Path: path, RawPath: r.URL.Path, RawQuery: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body,
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	hook := s.hook
	s.mu.Unlock()
	sw := &statusWriter{ResponseWriter: w}
	w = sw
	defer func() {
		s.mu.Lock()
		rec.Status = sw.status
		s.mu.Unlock()
	}()
	if hook != nil {
		hook(r)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}

	if !inPrefix {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
		return
	}
	if s.token != "" {
		auth := r.Header.Get("Authorization")
		if auth != "Bearer "+s.token && auth != "token "+s.token {
			writeError(w, http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest")
			return
		}
	}

	s.mu.Lock()
	fault := s.takeFault(r.Method, path)
	retryAfter := s.retryAfter
	readOnly := s.readOnly
	s.mu.Unlock()

	secs := int((retryAfter + time.Second - 1) / time.Second)
	switch fault {
	case SecondaryRateLimit, SecondaryRateLimit429:
		status := http.StatusForbidden
		if fault == SecondaryRateLimit429 {
			status = http.StatusTooManyRequests
		}
		rateHeaders(w, 4990)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(w, status,
			"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0C00:1B2A:3C4D5E:6F7A8B:6756A1B2.",
			"https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits")
		return
	case PrimaryRateLimit:
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Used", "5000")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Duration(secs)*time.Second).Unix(), 10))
		w.Header().Set("X-RateLimit-Resource", "core")
		writeError(w, http.StatusForbidden, "API rate limit exceeded for installation ID 4242.",
			"https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-primary-rate-limits")
		return
	case ServerError:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
		return
	}
	if readOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
		rateHeaders(w, 4999)
		writeError(w, http.StatusForbidden, "Resource not accessible by integration", docURL(r.Method, path))
		return
	}
	rateHeaders(w, 4999)
	r2 := r.Clone(r.Context())
	r2.URL.Path = path
	r2.URL.RawPath = ""
	s.mux.ServeHTTP(w, r2)
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func rateHeaders(w http.ResponseWriter, remaining int) {
	h := w.Header()
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(5000-remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
}

// docURL returns a plausible documentation_url for an endpoint.
func docURL(method, path string) string {
	switch {
	case strings.Contains(path, "/comments"):
		if method == http.MethodPost {
			return "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
		}
		return "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
	case strings.Contains(path, "/contents/"):
		return "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"
	case strings.Contains(path, "/git/"):
		return "https://docs.github.com/rest/git"
	}
	return "https://docs.github.com/rest"
}

// writeError writes GitHub's error body.
func writeError(w http.ResponseWriter, status int, message, doc string) {
	writeJSON(w, status, map[string]any{
		"message":           message,
		"documentation_url": doc,
		"status":            strconv.Itoa(status),
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}
