package ghtest

import (
	"container/heap"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// emptyTree is git's well-known empty tree id.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// repo is one repository's state: a small git object model (blobs, flat
// trees, commits, refs) plus issue comments.
type repo struct {
	owner, name   string
	id            int64
	defaultBranch string
	blobs         map[string][]byte
	trees         map[string]map[string]string // tree sha -> path -> blob sha
	commits       map[string]*commit
	refs          map[string]string // "refs/heads/main" -> commit sha
	issues        map[int][]*Comment
}

type commit struct {
	sha     string
	parents []string
	tree    string
	message string
	date    time.Time
	seq     int
}

// repo returns the repository "owner/name", creating it on first use. The
// caller holds s.mu.
func (s *Server) repo(fullName string) *repo {
	if r := s.repos[fullName]; r != nil {
		return r
	}
	owner, name, _ := strings.Cut(fullName, "/")
	r := &repo{
		owner: owner, name: name,
		id:            int64(len(s.repos) + 1),
		defaultBranch: "main",
		blobs:         map[string][]byte{},
		trees:         map[string]map[string]string{emptyTree: {}},
		commits:       map[string]*commit{},
		refs:          map[string]string{},
		issues:        map[int][]*Comment{},
	}
	s.repos[fullName] = r
	return r
}

func (r *repo) fullName() string { return r.owner + "/" + r.name }

// gitHash returns the git object id of an object of type kind.
func gitHash(kind string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (r *repo) addBlob(content []byte) string {
	sha := gitHash("blob", content)
	r.blobs[sha] = append([]byte(nil), content...)
	return sha
}

// addTree stores a flat tree (path -> blob sha) and returns its id.
func (r *repo) addTree(files map[string]string) string {
	if len(files) == 0 {
		return emptyTree
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	cp := make(map[string]string, len(files))
	for _, p := range paths {
		fmt.Fprintf(&b, "100644 %s\x00%s\n", p, files[p])
		cp[p] = files[p]
	}
	sha := gitHash("tree", []byte(b.String()))
	r.trees[sha] = cp
	return sha
}

// treeFiles returns a copy of a tree's files.
func (r *repo) treeFiles(tree string) map[string]string {
	out := map[string]string{}
	for p, b := range r.trees[tree] {
		out[p] = b
	}
	return out
}

// newCommit stores a commit; dates increase by one minute per commit so
// that children are always newer than their parents. The caller holds s.mu.
func (s *Server) newCommit(r *repo, message, tree string, parents []string) *commit {
	s.now = s.now.Add(time.Minute)
	seq := len(r.commits) + 1
	data := fmt.Sprintf("tree %s\n", tree)
	for _, p := range parents {
		data += fmt.Sprintf("parent %s\n", p)
	}
	data += fmt.Sprintf("author ghtest <ghtest@example.com> %d +0000\n\n%s\n#%d", s.now.Unix(), message, seq)
	c := &commit{
		sha:     gitHash("commit", []byte(data)),
		parents: append([]string(nil), parents...),
		tree:    tree,
		message: message,
		date:    s.now,
		seq:     seq,
	}
	r.commits[c.sha] = c
	return c
}

// resolve turns a branch name, "refs/heads/x", "heads/x" or a commit sha
// (full or at least 7 hex digits) into a commit.
func (r *repo) resolve(ref string) *commit {
	if ref == "" {
		ref = r.defaultBranch
	}
	for _, name := range []string{ref, "refs/heads/" + ref, "refs/" + ref} {
		if sha, ok := r.refs[name]; ok {
			return r.commits[sha]
		}
	}
	if c := r.commits[ref]; c != nil {
		return c
	}
	if len(ref) >= 7 {
		var found *commit
		for sha, c := range r.commits {
			if strings.HasPrefix(sha, ref) {
				if found != nil {
					return nil // ambiguous
				}
				found = c
			}
		}
		return found
	}
	return nil
}

// ancestors returns the set of commits reachable from sha (inclusive).
func (r *repo) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] || r.commits[s] == nil {
			continue
		}
		seen[s] = true
		stack = append(stack, r.commits[s].parents...)
	}
	return seen
}

// log lists the history reachable from sha newest first, like `git log`
// (and GET /repos/{o}/{r}/commits?sha=): commits are emitted in commit
// date order, so with merges the second-parent history is interleaved.
func (r *repo) log(sha string) []*commit {
	var out []*commit
	seen := map[string]bool{}
	h := &commitHeap{}
	if c := r.commits[sha]; c != nil {
		heap.Push(h, c)
		seen[sha] = true
	}
	for h.Len() > 0 {
		c := heap.Pop(h).(*commit)
		out = append(out, c)
		for _, p := range c.parents {
			if pc := r.commits[p]; pc != nil && !seen[p] {
				seen[p] = true
				heap.Push(h, pc)
			}
		}
	}
	return out
}

type commitHeap []*commit

func (h commitHeap) Len() int { return len(h) }
func (h commitHeap) Less(i, j int) bool {
	if !h[i].date.Equal(h[j].date) {
		return h[i].date.After(h[j].date)
	}
	return h[i].seq > h[j].seq
}
func (h commitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *commitHeap) Push(x any)   { *h = append(*h, x.(*commit)) }
func (h *commitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// addComment stores a new comment. The caller holds s.mu.
func (s *Server) addComment(r *repo, issue int, author Identity, body string) *Comment {
	s.nextID++
	s.now = s.now.Add(time.Second)
	c := &Comment{ID: s.nextID, Issue: issue, Body: body, User: author, CreatedAt: s.now, UpdatedAt: s.now}
	r.issues[issue] = append(r.issues[issue], c)
	return c
}
