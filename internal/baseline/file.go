package baseline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/raggate/raggate/internal/results"
)

// FileStore keeps one baseline in a results file at Path; the key's branch
// and commit are not used to locate it (Put records the commit in the file
// when the results do not).
type FileStore struct {
	Path string
	// Read says what Get keeps of the samples: the texts (response,
	// retrieved contexts, evidence) of those Read.Texts selects (nil:
	// none, as a comparison needs only the scores) and, with Read.Only,
	// those samples only.
	Read results.ReadOptions
}

var _ Store = (*FileStore)(nil)

// Get reads the file; a missing file is ErrNotFound.
func (s *FileStore) Get(ctx context.Context, key Key) (*results.File, Source, error) {
	if s.Path == "" {
		return nil, Source{}, errors.New("file baseline store: no path")
	}
	if err := ctx.Err(); err != nil {
		return nil, Source{}, err
	}
	f, err := results.ReadWith(s.Path, s.Read)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Source{}, fmt.Errorf("%w: %s does not exist", ErrNotFound, s.Path)
	}
	if err != nil {
		return nil, Source{}, fmt.Errorf("read baseline: %w", err)
	}
	return f, Source{Store: "file", Location: s.Path, SHA: gitSHA(f), Requested: key.SHA}, nil
}

// Put writes f to the file atomically.
func (s *FileStore) Put(ctx context.Context, key Key, f *results.File) error {
	if s.Path == "" {
		return errors.New("file baseline store: no path")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	g, err := withGit(f, key)
	if err != nil {
		return err
	}
	if err := results.Write(s.Path, g); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

// KeepingTexts returns a copy of s whose Get reads with o.
func (s *FileStore) KeepingTexts(o results.ReadOptions) Store { c := *s; c.Read = o; return &c }

// GetTable reads the file by columns (results.ReadTable), never holding
// its samples whole; a missing file is ErrNotFound, as for Get.
func (s *FileStore) GetTable(ctx context.Context, key Key) (*results.Table, Source, error) {
	if s.Path == "" {
		return nil, Source{}, errors.New("file baseline store: no path")
	}
	if err := ctx.Err(); err != nil {
		return nil, Source{}, err
	}
	t, err := results.ReadTable(s.Path, results.ScoresOnly)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Source{}, fmt.Errorf("%w: %s does not exist", ErrNotFound, s.Path)
	}
	if err != nil {
		return nil, Source{}, fmt.Errorf("read baseline: %w", err)
	}
	return t, Source{Store: "file", Location: s.Path, SHA: gitSHA(t.File), Requested: key.SHA}, nil
}
