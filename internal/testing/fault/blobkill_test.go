package fault

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSIGKILLMidBlobWriteSQLite kills the registry with SIGKILL while blob
// files are being written by first reads (of documents just published,
// and of documents whose files were deleted between rounds). After every kill,
// every file under its final name in the blob directory must hash to that
// name (a torn write may leave only a temp file, never a served one); in
// the end a registry restarted on the directory serves every acknowledged
// publish with its exact bytes.
func TestSIGKILLMidBlobWriteSQLite(t *testing.T) {
	requireFaults(t)
	const (
		rounds       = 4
		publishers   = 6
		readers      = 4
		acksPerRound = 200
		killAfter    = 5 * time.Second
	)
	dir := t.TempDir()
	blobDir := filepath.Join(dir, "blobs")
	c := newClient()
	defer c.close()
	acked := newLedger()
	checked := 0
	for round := 1; round <= rounds; round++ {
		// Half the files go, so reads of those documents refill them.
		dropBlobs(t, blobDir, uint64(round))
		srv := startServer(t, "--data-dir", dir)
		before := acked.len()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range publishers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for ctx.Err() == nil {
					doc := newDocument(rng)
					if w%2 == 0 {
						// Large documents widen the window a kill can
						// tear a write in.
						doc = append(doc, strings.Repeat("padding words for a long write\n", 20000)...)
					}
					if _, _, _, ok, err := c.publish(ctx, srv.URL, doc); ok {
						acked.add(doc)
					} else if err != nil {
						return // cut by the kill
					}
				}
			}()
		}
		for r := range readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), 100+uint64(r)))
				for ctx.Err() == nil {
					if acked.len() == 0 {
						time.Sleep(time.Millisecond)
						continue
					}
					h := acked.pick(rng)
					st, _, body, err := c.do(ctx, "GET", srv.URL+"/protocol/"+h, "", nil)
					if err != nil {
						return
					}
					if st != 200 || string(body) != string(acked.get(h)) {
						t.Errorf("round %d: GET %s before the kill: %d, %d bytes", round, h, st, len(body))
					}
				}
			}()
		}
		deadline := time.Now().Add(killAfter)
		for acked.len()-before < acksPerRound && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		srv.Kill()
		cancel()
		wg.Wait()
		if acked.len() == before {
			t.Fatalf("round %d: no publish acknowledged before the kill", round)
		}
		n, temps := checkBlobFiles(t, blobDir)
		checked += n
		t.Logf("round %d: killed after %d acknowledged publishes; %d blob files checked, %d temp files left", round, acked.len()-before, n, temps)
	}
	srv := startServer(t, "--data-dir", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := waitReady(ctx, c, srv.URL); err != nil {
		t.Fatal(err)
	}
	if bad := acked.verifyAll(ctx, c, srv.URL); len(bad) > 0 {
		t.Fatalf("%d of %d acknowledged publishes lost or changed; first: %v", len(bad), acked.len(), bad[:min(5, len(bad))])
	}
	t.Logf("FIGURES sigkill-blobs: rounds=%d acknowledged=%d blob_files_checked=%d wrong=0", rounds, acked.len(), checked)
}

// checkBlobFiles hashes every file under its final name; temp files
// (".tmp-…", never served) are counted.
func checkBlobFiles(t *testing.T, dir string) (files, temps int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			temps++
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha1.Sum(b)
		if hex.EncodeToString(sum[:]) != d.Name() {
			t.Errorf("blob %s holds %d bytes that hash to %x", path, len(b), sum)
		}
		files++
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files, temps
}

// dropBlobs deletes about half the blob files.
func dropBlobs(t *testing.T, dir string, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && rng.IntN(2) == 0 {
			os.Remove(path)
		}
		return nil
	})
}
