package registry

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/agora-registry/registry/internal/entity"
)

// OriginExample marks documents imported from the built-in examples.
const OriginExample = "example"

// Reserved publishers: the registry publishes as them itself, and no token
// can be made for them, so no token holder's document is ever shown as a
// newer version of theirs (only as a claim). ExamplesPublisher publishes
// the built-in examples, MirrorPublisher what is pulled from upstreams
// (whoever asks for a hash makes the pull), AnonymousPublisher what is
// published without a token on an open registry (so a stranger's
// supersedes is a claim, never a token holder's version).
const (
	ExamplesPublisher  = "examples"
	MirrorPublisher    = "mirror"
	AnonymousPublisher = "anonymous"
)

// PublisherOfToken is the publisher a publish with tok records: the
// token's, or AnonymousPublisher for a tokenless open publish.
func PublisherOfToken(tok entity.Token) string {
	if tok.Publisher == "" {
		return AnonymousPublisher
	}
	return tok.Publisher
}

// SeedExamples publishes every *.md file of fsys (byte for byte) when the
// store holds no document at all, listed or withdrawn, so an operator who
// deleted the examples never gets them back. It reports how many it added.
func (s *Service) SeedExamples(ctx context.Context, fsys fs.FS, dir string) (int, error) {
	st, err := s.store.Stats(ctx)
	if err != nil {
		return 0, err
	}
	if st.Documents > 0 || st.Withdrawn > 0 {
		return 0, nil
	}
	names, err := fs.Glob(fsys, path.Join(dir, "*.md"))
	if err != nil {
		return 0, err
	}
	sort.Strings(names)
	added := 0
	for _, name := range names {
		content, err := fs.ReadFile(fsys, name)
		if err != nil {
			return added, err
		}
		r, err := s.PublishRequest(ctx, PublishRequest{Content: content, Origin: OriginExample, Publisher: ExamplesPublisher})
		if err != nil {
			return added, fmt.Errorf("example %s: %w", name, err)
		}
		if r.Created {
			added++
		}
	}
	return added, nil
}
