package ghtest

import (
	"net/http"
	"strconv"
)

// pull is a pull request the fake knows about.
type pull struct {
	number                              int
	headSHA, headRepo, baseRef, baseSHA string
}

// AddPull registers pull request number of fullName with its head commit,
// the repository the head lives in ("" = fullName itself; a fork's name
// otherwise) and its base branch and commit, served by GET
// /repos/{o}/{r}/pulls/{number}.
func (s *Server) AddPull(fullName string, number int, headSHA, headRepo, baseRef, baseSHA string) {
	if headRepo == "" {
		headRepo = fullName
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pulls == nil {
		s.pulls = map[string]map[int]pull{}
	}
	if s.pulls[fullName] == nil {
		s.pulls[fullName] = map[int]pull{}
	}
	s.pulls[fullName][number] = pull{number, headSHA, headRepo, baseRef, baseSHA}
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request, rp *repo) {
	n, err := strconv.Atoi(r.PathValue("number"))
	p, ok := s.pulls[rp.owner+"/"+rp.name][n]
	if err != nil || !ok {
		notFound(w)
		return
	}
	full := rp.owner + "/" + rp.name
	writeJSON(w, http.StatusOK, map[string]any{
		"number":   p.number,
		"state":    "open",
		"html_url": s.ServerURL + "/" + full + "/pull/" + strconv.Itoa(p.number),
		"head":     map[string]any{"sha": p.headSHA, "ref": "feature", "repo": map[string]any{"full_name": p.headRepo}},
		"base":     map[string]any{"sha": p.baseSHA, "ref": p.baseRef, "repo": map[string]any{"full_name": full}},
	})
}
