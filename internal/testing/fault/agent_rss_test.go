package fault

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// Bounds of the agent memory attack: one client, a few connections, a
// capped number of requests and a capped time.
const (
	agentAttackWorkers  = 8
	agentAttackRequests = 600
	agentAttackTime     = 40 * time.Second
	agentRSSLimit       = 150 << 20 // the acceptance figure
)

// TestAgentMemoryUnderOneHostileClient runs the agent as a process with
// its default limits and an LLM (a stub on 127.0.0.1), so every hash is
// answered, and lets one client do its worst at memory: multi-round
// conversations on freshly minted ~700 KB documents (sent inline as data
// URIs), each fed 1 MB turns, from several connections at once. The
// agent's resident memory must stay under 150 MiB.
func TestAgentMemoryUnderOneHostileClient(t *testing.T) {
	requireFaults(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "agent")
	build := exec.Command("go", "build", "-o", bin, "github.com/agora-registry/registry/cmd/agent")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building the agent: %v", err)
	}
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"` + strings.Repeat("a", 4096) + `"}}]}`))
	}))
	defer llm.Close()
	config := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf("cacheDir: %s\nllm:\n  baseURL: %s/v1\n  model: stub\n", filepath.Join(dir, "cache"), llm.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	base, pid := startAgent(t, bin, config)

	rss := sampleRSS(pid)
	var sent, bytesSent atomic.Int64
	var mu sync.Mutex
	outcomes := map[string]int{}
	count := func(a agentAnswer) {
		mu.Lock()
		defer mu.Unlock()
		outcomes[a.Status+" "+a.Code]++
	}
	ctx, cancel := context.WithTimeout(context.Background(), agentAttackTime)
	defer cancel()
	c := newClient()
	defer c.close()
	turn, _ := json.Marshal(map[string]string{"body": strings.Repeat("t", 1_000_000)})
	var wg sync.WaitGroup
	for w := 0; w < agentAttackWorkers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			post := func(url string, payload []byte) (agentAnswer, bool) {
				if sent.Add(1) > agentAttackRequests || ctx.Err() != nil {
					return agentAnswer{}, false
				}
				bytesSent.Add(int64(len(payload)))
				st, _, body, err := c.do(ctx, "POST", url, "application/json", payload)
				var a agentAnswer
				switch {
				case err != nil:
					a.Status = "no answer"
				case st != http.StatusOK || json.Unmarshal(body, &a) != nil:
					a.Status = fmt.Sprintf("HTTP %d", st)
				}
				count(a)
				if a.Status != "success" {
					// Refused: pause a little, to spare the shared machine's CPU.
					time.Sleep(20 * time.Millisecond)
				}
				return a, true
			}
			for n := 0; ; n++ {
				a, ok := post(base+"/", mintedOpen(w, n))
				if !ok {
					return
				}
				if a.ConversationID == "" || a.Status != "success" {
					continue
				}
				for i := 0; i < 50; i++ {
					a, ok := post(base+"/conversations/"+a.ConversationID, turn)
					if !ok {
						return
					}
					if a.Code == "unknown_conversation" {
						break
					}
				}
			}
		}(w)
	}
	wg.Wait()
	start, peak, end, samples, err := rss.finish()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("one client, %d connections: %d requests, %.0f MB sent in %s; outcomes %v", agentAttackWorkers, min(sent.Load(), agentAttackRequests),
		float64(bytesSent.Load())/1e6, agentAttackTime, outcomes)
	t.Logf("agent RSS: start %.1f MiB, peak %.1f MiB, end %.1f MiB (%d samples); limit %.0f MiB", mib(start), mib(peak), mib(end), samples, mib(agentRSSLimit))
	if outcomes["success "] == 0 {
		t.Fatal("nothing was admitted: the attack did not reach the agent's memory")
	}
	if peak > agentRSSLimit {
		t.Fatalf("agent RSS peaked at %.1f MiB under one client, over %.0f MiB", mib(peak), mib(agentRSSLimit))
	}
}

type agentAnswer struct {
	Status         string `json:"status"`
	Code           string `json:"code"`
	ConversationID string `json:"conversationId"`
}

// mintedOpen opens a multi-round conversation on a new ~700 KB document,
// sent inline: a hash no routine knows, so the LLM answers it.
func mintedOpen(worker, n int) []byte {
	doc := []byte(fmt.Sprintf("---\nname: Minted %d/%d\n---\n%s\n", worker, n, strings.Repeat("m", 700_000)))
	sums, err := protocol.Hash(doc)
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(map[string]any{
		"protocolHash":    sums.SHA1.Base64(),
		"protocolSources": []string{"data:text/plain;charset=utf-8;base64," + base64.StdEncoding.EncodeToString(doc)},
		"body":            "hello",
		"multiround":      true,
	})
	return b
}

// startAgent runs `agent serve` on a loopback port and returns its URL
// and process id; the process is killed when the test ends.
func startAgent(t *testing.T, bin, config string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--config", config)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() { // drain the log so the agent never blocks on it
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "agent listening" {
				addr <- rec.Addr
			}
		}
	}()
	select {
	case a := <-addr:
		return "http://" + a, cmd.Process.Pid
	case <-time.After(30 * time.Second):
		t.Fatal("the agent did not start within 30 s")
		return "", 0
	}
}
