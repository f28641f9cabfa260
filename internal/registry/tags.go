package registry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
)

// ErrTagsNotAdded refuses extra tags for a document that is already
// stored: its entry does not change, so the tags would be silently lost.
var ErrTagsNotAdded = apperr.New(apperr.Conflict, "tags_not_added",
	"this document is already published and its tags cannot change")

// checkTagsKept refuses a publish of stored bytes with extra tags the
// entry lacks. Tags it already carries are no change and pass.
func checkTagsKept(e entity.Entry, extra []string) error {
	var missing []string
	for _, t := range extra {
		if !slices.Contains(e.Metadata.Tags, t) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return ErrTagsNotAdded.With(fmt.Sprintf(
		"this document is already published (%s) and a published entry never changes, so the tags %s were not added: publish a new version with them in its front matter (tags:) instead",
		e.Digest.Hex(), strings.Join(missing, ", ")))
}
