package ghtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxCommentChars is GitHub's limit on comment bodies.
const maxCommentChars = 65536

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /user", s.getUser)
	m.HandleFunc("POST /graphql", s.graphQL)
	m.HandleFunc("GET /repos/{owner}/{repo}", s.withRepo(s.getRepo))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{number}/comments", s.withRepo(s.listComments))
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", s.withRepo(s.createComment))
	m.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.withRepo(s.editComment))
	m.HandleFunc("DELETE /repos/{owner}/{repo}/issues/comments/{id}", s.withRepo(s.deleteComment))
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}", s.withRepo(s.getPull))
	m.HandleFunc("GET /repos/{owner}/{repo}/commits", s.withRepo(s.listCommits))
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}", s.withRepo(s.getCommit))
	m.HandleFunc("GET /repos/{owner}/{repo}/compare/{basehead}", s.withRepo(s.compare))
	m.HandleFunc("GET /repos/{owner}/{repo}/contents/{path...}", s.withRepo(s.getContents))
	m.HandleFunc("PUT /repos/{owner}/{repo}/contents/{path...}", s.withRepo(s.putContents))
	m.HandleFunc("GET /repos/{owner}/{repo}/branches", s.withRepo(s.listBranches))
	m.HandleFunc("GET /repos/{owner}/{repo}/git/ref/{ref...}", s.withRepo(s.getRef))
	m.HandleFunc("POST /repos/{owner}/{repo}/git/refs", s.withRepo(s.createRef))
	m.HandleFunc("PATCH /repos/{owner}/{repo}/git/refs/{ref...}", s.withRepo(s.updateRef))
	m.HandleFunc("POST /repos/{owner}/{repo}/git/trees", s.withRepo(s.createTree))
	m.HandleFunc("POST /repos/{owner}/{repo}/git/commits", s.withRepo(s.createCommit))
	m.HandleFunc("GET /repos/{owner}/{repo}/git/blobs/{sha}", s.withRepo(s.getBlob))
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
	})
}

// repoHandler handles a request for one repository with s.mu held.
type repoHandler func(w http.ResponseWriter, r *http.Request, rp *repo)

func (s *Server) withRepo(h repoHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		h(w, r, s.repo(r.PathValue("owner")+"/"+r.PathValue("repo")))
	}
}

// apiBase is the API URL (no trailing slash) as seen by the client.
func (s *Server) apiBase(r *http.Request) string { return "http://" + r.Host + s.prefix }

func notFound(w http.ResponseWriter) {
	writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
}

func validationFailed(w http.ResponseWriter, doc string, errs ...map[string]string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            errs,
		"documentation_url": doc,
		"status":            "422",
	})
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", "https://docs.github.com/rest")
		return false
	}
	return true
}

func wantsRaw(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, "application/vnd.github.raw") || strings.Contains(a, "application/vnd.github.v3.raw")
}

// paginate reads per_page (default 30, at most 100) and page (default 1),
// sets GitHub's Link header and returns the slice bounds of the page.
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, total int) (lo, hi int) {
	q := r.URL.Query()
	perPage, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page <= 0 {
		page = 1
	}
	last := max((total+perPage-1)/perPage, 1)
	link := func(p int, rel string) string {
		q2 := url.Values{}
		for k, v := range q {
			q2[k] = v
		}
		q2.Set("per_page", strconv.Itoa(perPage))
		q2.Set("page", strconv.Itoa(p))
		return fmt.Sprintf("<%s%s?%s>; rel=%q", s.apiBase(r), r.URL.Path, q2.Encode(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((page-1)*perPage, total)
	hi = min(lo+perPage, total)
	return lo, hi
}

// ---- users and repositories ----

func (s *Server) userJSON(r *http.Request, id Identity) map[string]any {
	return map[string]any{
		"login":      id.Login,
		"id":         id.ID,
		"node_id":    fmt.Sprintf("U_kgDO%08d", id.ID%100000000),
		"type":       id.Type,
		"site_admin": false,
		"url":        s.apiBase(r) + "/users/" + url.PathEscape(id.Login),
		"html_url":   s.ServerURL + "/" + url.PathEscape(id.Login),
	}
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	id, integration := s.identity, s.integration
	s.mu.Unlock()
	if integration {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration",
			"https://docs.github.com/rest/users/users#get-the-authenticated-user")
		return
	}
	writeJSON(w, http.StatusOK, s.userJSON(r, id))
}

// graphQL answers the one query raggate sends, { viewer { login } }, for
// every kind of token (GitHub's GraphQL serves installation tokens, unlike
// GET /user); other queries get GraphQL's error shape.
func (s *Server) graphQL(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Query string `json:"query"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	s.mu.Lock()
	id := s.identity
	s.mu.Unlock()
	q := strings.Join(strings.Fields(in.Query), "")
	if strings.Contains(q, "viewer{login}") {
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": id.Login}}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"errors": []map[string]any{{
		"message": "ghtest: only { viewer { login } } is implemented", "type": "NOT_IMPLEMENTED"}}})
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request, rp *repo) {
	writeJSON(w, http.StatusOK, map[string]any{
		"id":             rp.id,
		"node_id":        fmt.Sprintf("R_kgDO%08d", rp.id),
		"name":           rp.name,
		"full_name":      rp.fullName(),
		"private":        false,
		"fork":           false,
		"owner":          s.userJSON(r, User(rp.owner)),
		"default_branch": rp.defaultBranch,
		"html_url":       s.ServerURL + "/" + rp.fullName(),
		"url":            s.apiBase(r) + "/repos/" + rp.fullName(),
	})
}

// ---- issue comments ----

func (s *Server) commentJSON(r *http.Request, rp *repo, c *Comment) map[string]any {
	return map[string]any{
		"id":                 c.ID,
		"node_id":            fmt.Sprintf("IC_kwDO%010d", c.ID),
		"url":                fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.apiBase(r), rp.fullName(), c.ID),
		"html_url":           fmt.Sprintf("%s/%s/pull/%d#issuecomment-%d", s.ServerURL, rp.fullName(), c.Issue, c.ID),
		"issue_url":          fmt.Sprintf("%s/repos/%s/issues/%d", s.apiBase(r), rp.fullName(), c.Issue),
		"body":               c.Body,
		"user":               s.userJSON(r, c.User),
		"created_at":         c.CreatedAt.Format(time.RFC3339),
		"updated_at":         c.UpdatedAt.Format(time.RFC3339),
		"author_association": "NONE",
	}
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request, rp *repo) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		notFound(w)
		return
	}
	all := rp.issues[n]
	lo, hi := s.paginate(w, r, len(all))
	out := make([]map[string]any, 0, hi-lo)
	for _, c := range all[lo:hi] {
		out = append(out, s.commentJSON(r, rp, c))
	}
	writeJSON(w, http.StatusOK, out)
}

func checkCommentBody(w http.ResponseWriter, body *string) bool {
	const doc = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	if body == nil {
		validationFailed(w, doc, map[string]string{"resource": "IssueComment", "code": "missing_field", "field": "body"})
		return false
	}
	if utf8.RuneCountInString(*body) > maxCommentChars {
		validationFailed(w, doc, map[string]string{"resource": "IssueComment", "code": "custom", "field": "body",
			"message": "body is too long (maximum is 65536 characters)"})
		return false
	}
	return true
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request, rp *repo) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		notFound(w)
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decodeBody(w, r, &in) || !checkCommentBody(w, in.Body) {
		return
	}
	c := s.addComment(rp, n, s.identity, *in.Body)
	w.Header().Set("Location", fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.apiBase(r), rp.fullName(), c.ID))
	writeJSON(w, http.StatusCreated, s.commentJSON(r, rp, c))
}

func (rp *repo) findComment(id string) (*Comment, int, int) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil, 0, 0
	}
	for issue, cs := range rp.issues {
		for i, c := range cs {
			if c.ID == n {
				return c, issue, i
			}
		}
	}
	return nil, 0, 0
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request, rp *repo) {
	c, _, _ := rp.findComment(r.PathValue("id"))
	if c == nil {
		notFound(w)
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decodeBody(w, r, &in) || !checkCommentBody(w, in.Body) {
		return
	}
	s.now = s.now.Add(time.Second)
	c.Body, c.UpdatedAt = *in.Body, s.now
	writeJSON(w, http.StatusOK, s.commentJSON(r, rp, c))
}

func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request, rp *repo) {
	c, issue, i := rp.findComment(r.PathValue("id"))
	if c == nil {
		notFound(w)
		return
	}
	rp.issues[issue] = append(rp.issues[issue][:i:i], rp.issues[issue][i+1:]...)
	w.WriteHeader(http.StatusNoContent)
}

// ---- commits ----

func (s *Server) gitCommitJSON(r *http.Request, rp *repo, c *commit) map[string]any {
	parents := make([]map[string]any, 0, len(c.parents))
	for _, p := range c.parents {
		parents = append(parents, map[string]any{
			"sha":      p,
			"url":      fmt.Sprintf("%s/repos/%s/git/commits/%s", s.apiBase(r), rp.fullName(), p),
			"html_url": fmt.Sprintf("%s/%s/commit/%s", s.ServerURL, rp.fullName(), p),
		})
	}
	who := map[string]any{"name": "ghtest", "email": "ghtest@example.com", "date": c.date.Format(time.RFC3339)}
	return map[string]any{
		"sha":       c.sha,
		"node_id":   "C_" + c.sha[:12],
		"url":       fmt.Sprintf("%s/repos/%s/git/commits/%s", s.apiBase(r), rp.fullName(), c.sha),
		"html_url":  fmt.Sprintf("%s/%s/commit/%s", s.ServerURL, rp.fullName(), c.sha),
		"author":    who,
		"committer": who,
		"message":   c.message,
		"tree": map[string]any{
			"sha": c.tree,
			"url": fmt.Sprintf("%s/repos/%s/git/trees/%s", s.apiBase(r), rp.fullName(), c.tree),
		},
		"parents":      parents,
		"verification": map[string]any{"verified": false, "reason": "unsigned"},
	}
}

// repoCommitJSON is the shape of GET /repos/{o}/{r}/commits/{ref}.
func (s *Server) repoCommitJSON(r *http.Request, rp *repo, c *commit) map[string]any {
	g := s.gitCommitJSON(r, rp, c)
	return map[string]any{
		"sha":     c.sha,
		"node_id": g["node_id"],
		"commit": map[string]any{
			"author": g["author"], "committer": g["committer"], "message": c.message,
			"tree": g["tree"], "url": g["url"], "comment_count": 0,
		},
		"url":          fmt.Sprintf("%s/repos/%s/commits/%s", s.apiBase(r), rp.fullName(), c.sha),
		"html_url":     g["html_url"],
		"comments_url": fmt.Sprintf("%s/repos/%s/commits/%s/comments", s.apiBase(r), rp.fullName(), c.sha),
		"parents":      g["parents"],
	}
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request, rp *repo) {
	ref := r.PathValue("ref")
	c := rp.resolve(ref)
	if c == nil {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+ref,
			"https://docs.github.com/rest/commits/commits#get-a-commit")
		return
	}
	out := s.repoCommitJSON(r, rp, c)
	out["files"] = []any{}
	out["stats"] = map[string]int{"total": 0, "additions": 0, "deletions": 0}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listCommits(w http.ResponseWriter, r *http.Request, rp *repo) {
	c := rp.resolve(r.URL.Query().Get("sha"))
	if c == nil {
		notFound(w)
		return
	}
	all := rp.log(c.sha)
	lo, hi := s.paginate(w, r, len(all))
	out := make([]map[string]any, 0, hi-lo)
	for _, c := range all[lo:hi] {
		out = append(out, s.repoCommitJSON(r, rp, c))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request, rp *repo) {
	baseRef, headRef, ok := strings.Cut(r.PathValue("basehead"), "...")
	if !ok {
		notFound(w)
		return
	}
	base, head := rp.resolve(baseRef), rp.resolve(headRef)
	if base == nil || head == nil {
		notFound(w)
		return
	}
	baseAnc, headAnc := rp.ancestors(base.sha), rp.ancestors(head.sha)
	var ahead, behind []*commit
	for sha := range headAnc {
		if !baseAnc[sha] {
			ahead = append(ahead, rp.commits[sha])
		}
	}
	for sha := range baseAnc {
		if !headAnc[sha] {
			behind = append(behind, rp.commits[sha])
		}
	}
	var mergeBase *commit
	for _, c := range rp.log(head.sha) {
		if baseAnc[c.sha] {
			mergeBase = c
			break
		}
	}
	if mergeBase == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("No common ancestor between %s and %s.", baseRef, headRef),
			"https://docs.github.com/rest/commits/commits#compare-two-commits")
		return
	}
	status := "diverged"
	switch {
	case len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	sort.Slice(ahead, func(i, j int) bool { return ahead[i].date.Before(ahead[j].date) })
	commits := make([]map[string]any, 0, len(ahead))
	for _, c := range ahead {
		commits = append(commits, s.repoCommitJSON(r, rp, c))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"url":               fmt.Sprintf("%s/repos/%s/compare/%s...%s", s.apiBase(r), rp.fullName(), baseRef, headRef),
		"html_url":          fmt.Sprintf("%s/%s/compare/%s...%s", s.ServerURL, rp.fullName(), baseRef, headRef),
		"base_commit":       s.repoCommitJSON(r, rp, base),
		"merge_base_commit": s.repoCommitJSON(r, rp, mergeBase),
		"status":            status,
		"ahead_by":          len(ahead),
		"behind_by":         len(behind),
		"total_commits":     len(ahead),
		"commits":           commits,
		"files":             []any{},
	})
}

// ---- contents ----

// wrap64 encodes like GitHub: base64 with a newline every 60 characters.
func wrap64(b []byte) string {
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	for len(enc) > 60 {
		sb.WriteString(enc[:60])
		sb.WriteByte('\n')
		enc = enc[60:]
	}
	sb.WriteString(enc)
	sb.WriteByte('\n')
	return sb.String()
}

func (s *Server) contentEntryJSON(r *http.Request, rp *repo, path, blob, ref string, typ string) map[string]any {
	name := path[strings.LastIndex(path, "/")+1:]
	q := "?ref=" + url.QueryEscape(ref)
	out := map[string]any{
		"type":     typ,
		"name":     name,
		"path":     path,
		"sha":      blob,
		"size":     0,
		"url":      fmt.Sprintf("%s/repos/%s/contents/%s%s", s.apiBase(r), rp.fullName(), path, q),
		"html_url": fmt.Sprintf("%s/%s/blob/%s/%s", s.ServerURL, rp.fullName(), ref, path),
		"git_url":  fmt.Sprintf("%s/repos/%s/git/blobs/%s", s.apiBase(r), rp.fullName(), blob),
	}
	if typ == "file" {
		out["size"] = len(rp.blobs[blob])
		out["download_url"] = fmt.Sprintf("%s/raw/%s/%s/%s", s.ServerURL, rp.fullName(), ref, path)
	} else {
		out["download_url"] = nil
		out["html_url"] = fmt.Sprintf("%s/%s/tree/%s/%s", s.ServerURL, rp.fullName(), ref, path)
		out["git_url"] = nil
	}
	return out
}

func (s *Server) getContents(w http.ResponseWriter, r *http.Request, rp *repo) {
	ref := r.URL.Query().Get("ref")
	c := rp.resolve(ref)
	if c == nil {
		if ref == "" {
			ref = rp.defaultBranch
		}
		writeError(w, http.StatusNotFound, "No commit found for the ref "+ref,
			"https://docs.github.com/rest/repos/contents#get-repository-content")
		return
	}
	if ref == "" {
		ref = rp.defaultBranch
	}
	path := strings.Trim(r.PathValue("path"), "/")
	files := rp.treeFiles(c.tree)
	if blob, ok := files[path]; ok {
		data := rp.blobs[blob]
		if wantsRaw(r) {
			w.Header().Set("Content-Type", "application/vnd.github.raw")
			w.WriteHeader(http.StatusOK)
			w.Write(data)
			return
		}
		out := s.contentEntryJSON(r, rp, path, blob, ref, "file")
		if len(data) > s.contentsLimit {
			out["content"], out["encoding"] = "", "none"
		} else {
			out["content"], out["encoding"] = wrap64(data), "base64"
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	// A directory: list its immediate children.
	prefix := path + "/"
	if path == "" {
		prefix = ""
	}
	children := map[string]string{} // name -> blob ("" for dirs)
	for p, blob := range files {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rest := p[len(prefix):]
		if name, _, isDir := strings.Cut(rest, "/"); isDir {
			children[name] = ""
		} else {
			children[name] = blob
		}
	}
	if len(children) == 0 {
		notFound(w)
		return
	}
	names := make([]string, 0, len(children))
	for n := range children {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 1000 {
		names = names[:1000] // the contents API lists at most 1,000 entries
	}
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		if blob := children[n]; blob != "" {
			out = append(out, s.contentEntryJSON(r, rp, prefix+n, blob, ref, "file"))
		} else {
			out = append(out, s.contentEntryJSON(r, rp, prefix+n, gitHash("tree", []byte(prefix+n)), ref, "dir"))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) putContents(w http.ResponseWriter, r *http.Request, rp *repo) {
	const doc = "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"
	var in struct {
		Message *string `json:"message"`
		Content *string `json:"content"`
		SHA     *string `json:"sha"`
		Branch  *string `json:"branch"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	switch {
	case in.Message == nil:
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"message\" wasn't supplied.", doc)
		return
	case in.Content == nil:
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"content\" wasn't supplied.", doc)
		return
	}
	data, err := base64.StdEncoding.DecodeString(*in.Content)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "content is not valid Base64", doc)
		return
	}
	branch := rp.defaultBranch
	if in.Branch != nil && *in.Branch != "" {
		branch = strings.TrimPrefix(*in.Branch, "refs/heads/")
	}
	path := strings.Trim(r.PathValue("path"), "/")
	head, hasBranch := rp.refs["refs/heads/"+branch]
	if !hasBranch && (len(rp.refs) > 0 || branch != rp.defaultBranch) {
		writeError(w, http.StatusNotFound, "Branch "+branch+" not found", doc)
		return
	}
	files := map[string]string{}
	var parents []string
	if hasBranch {
		files = rp.treeFiles(rp.commits[head].tree)
		parents = []string{head}
	}
	existing, exists := files[path]
	status := http.StatusCreated
	if exists {
		if in.SHA == nil || *in.SHA == "" {
			writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.", doc)
			return
		}
		if *in.SHA != existing {
			writeError(w, http.StatusConflict, fmt.Sprintf("%s does not match %s", path, *in.SHA), doc)
			return
		}
		status = http.StatusOK
	}
	blob := rp.addBlob(data)
	files[path] = blob
	c := s.newCommit(rp, *in.Message, rp.addTree(files), parents)
	rp.refs["refs/heads/"+branch] = c.sha
	content := s.contentEntryJSON(r, rp, path, blob, branch, "file")
	writeJSON(w, status, map[string]any{"content": content, "commit": s.gitCommitJSON(r, rp, c)})
}

// ---- git data ----

func (s *Server) refJSON(r *http.Request, rp *repo, ref, sha string) map[string]any {
	return map[string]any{
		"ref":     ref,
		"node_id": "REF_" + sha[:12],
		"url":     fmt.Sprintf("%s/repos/%s/git/%s", s.apiBase(r), rp.fullName(), ref),
		"object": map[string]any{
			"type": "commit",
			"sha":  sha,
			"url":  fmt.Sprintf("%s/repos/%s/git/commits/%s", s.apiBase(r), rp.fullName(), sha),
		},
	}
}

// listBranches lists the branches by name, paginated.
func (s *Server) listBranches(w http.ResponseWriter, r *http.Request, rp *repo) {
	var names []string
	for ref := range rp.refs {
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			names = append(names, b)
		}
	}
	sort.Strings(names)
	lo, hi := s.paginate(w, r, len(names))
	out := make([]map[string]any, 0, hi-lo)
	for _, b := range names[lo:hi] {
		sha := rp.refs["refs/heads/"+b]
		out = append(out, map[string]any{
			"name":      b,
			"commit":    map[string]any{"sha": sha, "url": fmt.Sprintf("%s/repos/%s/commits/%s", s.apiBase(r), rp.fullName(), sha)},
			"protected": false,
		})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getRef(w http.ResponseWriter, r *http.Request, rp *repo) {
	ref := "refs/" + strings.TrimPrefix(r.PathValue("ref"), "refs/")
	sha, ok := rp.refs[ref]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/git/refs#get-a-reference")
		return
	}
	writeJSON(w, http.StatusOK, s.refJSON(r, rp, ref, sha))
}

func (s *Server) createRef(w http.ResponseWriter, r *http.Request, rp *repo) {
	const doc = "https://docs.github.com/rest/git/refs#create-a-reference"
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	switch {
	case !strings.HasPrefix(in.Ref, "refs/") || strings.Count(in.Ref, "/") < 2:
		writeError(w, http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.", doc)
	case rp.commits[in.SHA] == nil:
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist", doc)
	case rp.refs[in.Ref] != "":
		writeError(w, http.StatusUnprocessableEntity, "Reference already exists", doc)
	default:
		rp.refs[in.Ref] = in.SHA
		writeJSON(w, http.StatusCreated, s.refJSON(r, rp, in.Ref, in.SHA))
	}
}

func (s *Server) updateRef(w http.ResponseWriter, r *http.Request, rp *repo) {
	const doc = "https://docs.github.com/rest/git/refs#update-a-reference"
	ref := "refs/" + strings.TrimPrefix(r.PathValue("ref"), "refs/")
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	cur, ok := rp.refs[ref]
	switch {
	case !ok:
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist", doc)
	case rp.commits[in.SHA] == nil:
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist", doc)
	case !in.Force && !rp.ancestors(in.SHA)[cur]:
		writeError(w, http.StatusUnprocessableEntity, "Update is not a fast forward", doc)
	default:
		rp.refs[ref] = in.SHA
		writeJSON(w, http.StatusOK, s.refJSON(r, rp, ref, in.SHA))
	}
}

func (s *Server) createTree(w http.ResponseWriter, r *http.Request, rp *repo) {
	const doc = "https://docs.github.com/rest/git/trees#create-a-tree"
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string  `json:"path"`
			Mode    string  `json:"mode"`
			Type    string  `json:"type"`
			SHA     *string `json:"sha"`
			Content *string `json:"content"`
		} `json:"tree"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	files := map[string]string{}
	if in.BaseTree != "" {
		if _, ok := rp.trees[in.BaseTree]; !ok {
			validationFailed(w, doc, map[string]string{"resource": "Tree", "code": "invalid", "field": "base_tree"})
			return
		}
		files = rp.treeFiles(in.BaseTree)
	}
	for _, e := range in.Tree {
		switch {
		case e.Content != nil:
			files[e.Path] = rp.addBlob([]byte(*e.Content))
		case e.SHA != nil:
			if _, ok := rp.blobs[*e.SHA]; !ok {
				writeError(w, http.StatusUnprocessableEntity, "Must supply a valid tree.sha", doc)
				return
			}
			files[e.Path] = *e.SHA
		default:
			delete(files, e.Path)
		}
	}
	sha := rp.addTree(files)
	entries := []map[string]any{}
	for p, b := range files {
		entries = append(entries, map[string]any{"path": p, "mode": "100644", "type": "blob", "sha": b, "size": len(rp.blobs[b])})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i]["path"].(string) < entries[j]["path"].(string) })
	writeJSON(w, http.StatusCreated, map[string]any{
		"sha":       sha,
		"url":       fmt.Sprintf("%s/repos/%s/git/trees/%s", s.apiBase(r), rp.fullName(), sha),
		"tree":      entries,
		"truncated": false,
	})
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request, rp *repo) {
	const doc = "https://docs.github.com/rest/git/commits#create-a-commit"
	var in struct {
		Message string   `json:"message"`
		Tree    string   `json:"tree"`
		Parents []string `json:"parents"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	if _, ok := rp.trees[in.Tree]; !ok {
		writeError(w, http.StatusUnprocessableEntity, "Tree SHA does not exist", doc)
		return
	}
	for _, p := range in.Parents {
		if rp.commits[p] == nil {
			writeError(w, http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object", doc)
			return
		}
	}
	c := s.newCommit(rp, in.Message, in.Tree, in.Parents)
	writeJSON(w, http.StatusCreated, s.gitCommitJSON(r, rp, c))
}

func (s *Server) getBlob(w http.ResponseWriter, r *http.Request, rp *repo) {
	sha := r.PathValue("sha")
	data, ok := rp.blobs[sha]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/git/blobs#get-a-blob")
		return
	}
	if wantsRaw(r) {
		w.Header().Set("Content-Type", "application/vnd.github.raw")
		w.WriteHeader(http.StatusOK)
		w.Write(data)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"sha":      sha,
		"node_id":  "B_" + sha[:12],
		"size":     len(data),
		"url":      fmt.Sprintf("%s/repos/%s/git/blobs/%s", s.apiBase(r), rp.fullName(), sha),
		"content":  wrap64(data),
		"encoding": "base64",
	})
}
