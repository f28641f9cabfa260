//go:build !linux

package blobs

// PutBatch is Put for many blobs (elsewhere than Linux, without syncfs:
// each file is synced on its own).
func (s *Store) PutBatch(items []Item) error {
	for _, it := range items {
		if err := s.Put(it.Digest, it.Content); err != nil {
			return err
		}
	}
	return nil
}

// Sync does nothing here: PutBatch synced every file.
func (s *Store) Sync() error { return nil }
