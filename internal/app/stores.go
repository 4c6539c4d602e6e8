package app

import (
	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/results"
)

// Store kinds (StoreConfig.Kind).
const (
	StoreFile   = "file"   // a results file in the working tree
	StoreGit    = "git"    // a results file read with git show (read-only)
	StoreRef    = "ref"    // a results file read at a commit through the GitHub API (read-only)
	StoreBranch = "branch" // a baseline branch written through the GitHub API
	StoreDir    = "dir"    // a directory of results files (history only)
)

// StoreConfig names a baseline store. OpenStore is the one place that
// builds stores: every front end and use case describes the store it
// wants here.
type StoreConfig struct {
	Kind string
	// Path: the results file (file), the path in the repository (git,
	// ref) or the directory (dir); relative to Env.Dir.
	Path string
	// Ref is the only ref the git store reads ("" = the key's commit, then
	// origin/BRANCH, then BRANCH).
	Ref string
	// Owner and Repo name the GitHub repository (ref, branch).
	Owner, Repo string
	// Branch is the branch that holds the baselines (branch).
	Branch string
	// Client is the GitHub client (ref, branch); nil: one is made from
	// Token and APIURL.
	Client        *github.Client
	Token, APIURL string
	// Texts selects the samples whose texts are read (nil: none).
	Texts func(id string) bool
}

// OpenStore builds the store c names. A GitHub store without a client
// or a token is a usage error.
func OpenStore(env Env, c StoreConfig) (baseline.Store, error) {
	switch c.Kind {
	case StoreFile:
		return &baseline.FileStore{Path: env.abs(c.Path), Read: results.ReadOptions{Texts: c.Texts}}, nil
	case StoreGit:
		return &baseline.GitStore{Dir: env.Dir, Path: c.Path, Ref: c.Ref, Read: results.ReadOptions{Texts: c.Texts}}, nil
	case StoreRef, StoreBranch:
	default:
		return nil, usageErr("baseline store %q: want branch, git or file", c.Kind)
	}
	client := c.Client
	if client == nil {
		var err error
		if client, err = ghapi.NewClient(c.Token, c.APIURL, nil, env.GitHubOptions()...); err != nil {
			return nil, asUsage(err)
		}
	}
	if c.Kind == StoreRef {
		return &baseline.RefStore{Client: client, Owner: c.Owner, Repo: c.Repo, Path: c.Path, Read: results.ReadOptions{Texts: c.Texts}}, nil
	}
	return &baseline.BranchStore{Client: client, Owner: c.Owner, Repo: c.Repo, Branch: c.Branch, Read: results.ReadOptions{Texts: c.Texts}, Logf: env.logf}, nil
}

// OpenHistorian builds the store c names for reading history: a
// directory of results files (dir, or file given a directory) or a store
// that keeps history (branch, git).
func OpenHistorian(env Env, c StoreConfig) (baseline.Historian, error) {
	if c.Kind == StoreDir {
		return &baseline.DirStore{Dir: env.abs(c.Path)}, nil
	}
	st, err := OpenStore(env, c)
	if err != nil {
		return nil, err
	}
	h, ok := st.(baseline.Historian)
	if !ok {
		return nil, usageErr("--store %s keeps no history", c.Kind)
	}
	return h, nil
}
