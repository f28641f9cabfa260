package archive

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// Exporter is what Export reads: the documents, the status history of
// those whose status changed, and the engine's name.
type Exporter interface {
	Each(ctx context.Context, fn func(entity.Entry) error) error
	History(ctx context.Context, d protocol.Digest) ([]entity.HistoryEvent, error)
	ListPublishers(ctx context.Context) ([]entity.Publisher, error)
	Engine() string
}

// Export writes every document of s, withdrawn ones included, to w as one
// archive. It streams: memory use does not grow with the registry. On error
// w holds a truncated archive that Import recognises as such.
func Export(ctx context.Context, s Exporter, w io.Writer) (Summary, error) {
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return Summary{}, err
	}
	tw := tar.NewWriter(gz)
	now := time.Now().UTC()
	var sum Summary

	if err := writeJSON(tw, manifestName, now, Manifest{Format: Format, Version: Version, Engine: s.Engine(), CreatedAt: now}); err != nil {
		return sum, err
	}
	accounts, err := s.ListPublishers(ctx)
	if err != nil {
		return sum, err
	}
	pubs := make([]PublisherRecord, 0, len(accounts))
	for _, p := range accounts {
		pubs = append(pubs, PublisherRecord{Name: p.Name, DisplayName: p.DisplayName})
	}
	if err := writeJSON(tw, publishersName, now, pubs); err != nil {
		return sum, err
	}
	sum.Publishers = len(pubs)
	err = s.Each(ctx, func(e entity.Entry) error {
		if e.Content == nil {
			return fmt.Errorf("export: the store yielded %s without its content", e.Digest.Hex())
		}
		rec := recordOf(e)
		// Only a document whose status was set or that was withdrawn can
		// have a history: one more query for those alone.
		if e.Lifecycle.ChangedAt != nil || e.Withdrawn() {
			history, err := s.History(ctx, e.Digest)
			if err != nil {
				return err
			}
			lifecycleOf(e, history, &rec)
		}
		if err := writeJSON(tw, recordName(e.Digest), e.CreatedAt, rec); err != nil {
			return err
		}
		if err := writeFile(tw, contentName(e.Digest), e.CreatedAt, e.Content); err != nil {
			return err
		}
		sum.Documents++
		sum.Bytes += int64(len(e.Content))
		if e.Withdrawn() {
			sum.Withdrawn++
		}
		return nil
	})
	if err != nil {
		return sum, err
	}
	if err := writeJSON(tw, summaryName, time.Now().UTC(), sum); err != nil {
		return sum, err
	}
	if err := tw.Close(); err != nil {
		return sum, err
	}
	return sum, gz.Close()
}

// recordOf keeps what the bytes cannot tell again. Tags that the front
// matter already carries are left out so that the record holds exactly the
// tags given beside the document.
func recordOf(e entity.Entry) Record {
	own, _ := protocol.ParseMetadata(e.Content)
	var extra []string
	for _, t := range e.Metadata.Tags {
		if !slices.Contains(own.Tags, t) {
			extra = append(extra, t)
		}
	}
	rec := Record{
		Digest:         e.Digest,
		ExtraTags:      extra,
		Origin:         e.Origin,
		Publisher:      e.Publisher,
		CreatedAt:      e.CreatedAt.UTC(),
		WithdrawnAt:    entity.InUTC(e.WithdrawnAt),
		WithdrawReason: e.WithdrawReason,
	}
	if e.Metadata.Title != own.Title {
		rec.Title = e.Metadata.Title
	}
	if e.Metadata.Description != own.Description {
		rec.Description = e.Metadata.Description
	}
	return rec
}

func writeJSON(tw *tar.Writer, name string, mod time.Time, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFile(tw, name, mod, b)
}

func writeFile(tw *tar.Writer, name string, mod time.Time, b []byte) error {
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Mode:     0o644,
		Size:     int64(len(b)),
		ModTime:  tarTime(mod),
		Format:   tar.FormatUSTAR,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := tw.Write(b)
	return err
}

// tarTime fits a time into the USTAR header field, which holds no time
// before 1970; the record keeps the exact time anyway.
func tarTime(t time.Time) time.Time {
	if t.Before(time.Unix(0, 0)) {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC().Truncate(time.Second)
}
