package protocol

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/agora-registry/registry/internal/apperr"
)

// Front matter limits. Decoding YAML costs far more than its size (about
// 150 bytes of memory per node), so the block is refused by size before it
// is decoded, and by node count (aliases expanded, as any consumer that
// converts it to JSON would) right after.
const (
	MaxFrontMatterBytes = 64 << 10
	MaxFrontMatterNodes = 10_000
)

// ErrFrontMatterTooLarge refuses a publish whose front matter is over the
// limits above; its code is part of the API.
var ErrFrontMatterTooLarge = apperr.New(apperr.TooLarge, "front_matter_too_large", "the front matter is too large")

// LintFrontMatterTooLarge marks front matter that was not read for its size.
// Prepare turns it into ErrFrontMatterTooLarge, so it is only seen on
// documents stored before the limits existed.
const LintFrontMatterTooLarge = "front_matter_too_large"

// decodeFrontMatter parses a front matter block into a YAML tree within the
// limits. A budget failure is returned as a lint; a YAML error as err.
func decodeFrontMatter(block []byte) (*yaml.Node, *Lint, error) {
	if len(block) > MaxFrontMatterBytes {
		return nil, &Lint{LintFrontMatterTooLarge, fmt.Sprintf(
			"the front matter is %d bytes; the limit is %d bytes", len(block), MaxFrontMatterBytes)}, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(block, &root); err != nil {
		return nil, nil, err
	}
	if n := expandedNodes(&root, MaxFrontMatterNodes); n > MaxFrontMatterNodes {
		return nil, &Lint{LintFrontMatterTooLarge, fmt.Sprintf(
			"the front matter has more than %d YAML nodes (aliases expanded)", MaxFrontMatterNodes)}, nil
	}
	return &root, nil, nil
}

// expandedNodes counts the nodes of a tree with every alias replaced by
// what it names, stopping as soon as the count passes limit (so a billion
// laughs costs no more than limit steps). An alias to one of its own
// ancestors would expand forever and counts as over the limit.
func expandedNodes(root *yaml.Node, limit int) int {
	sizes := map[*yaml.Node]int{} // finished subtrees; -1 while being counted
	var count func(n *yaml.Node) int
	count = func(n *yaml.Node) int {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			return count(n.Alias)
		}
		if size, seen := sizes[n]; seen {
			if size < 0 {
				return limit + 1
			}
			return size
		}
		sizes[n] = -1
		size := 1
		for _, child := range n.Content {
			if size += count(child); size > limit {
				size = limit + 1
				break
			}
		}
		sizes[n] = size
		return size
	}
	return count(root)
}

// frontMatterError is the refusal for a document whose metadata reading
// found its front matter over the limits.
func frontMatterError(lints []Lint) error {
	for _, l := range lints {
		if l.Code == LintFrontMatterTooLarge {
			return ErrFrontMatterTooLarge.With(l.Message)
		}
	}
	return nil
}
