package agent

// `agent send` against receivers written like the real ones: the Python
// SDK's ReceiverServer (agora/receiver/server.py with Receiver's
// create_conversation and agora.utils.download_and_verify_protocol), a
// seed-style agent with hex keys in /.wellknown, an agent that serves
// /.well-known/agora, and spec v0.2 / seed replies.

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
)

// flaskNotFound is Flask's (Werkzeug's) 404 page: the SDK's receiver has no
// well-known endpoint.
const flaskNotFound = "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n<p>The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.</p>\n"

// sdkReceiver behaves like agora-protocol 0.2.0's ReceiverServer around a
// Receiver whose protocol checker accepts everything and whose responder
// is answer (the LLM, scripted).
type sdkReceiver struct {
	answer func(document string, body any) any // string, or an object (a routine's dict)

	mu       sync.Mutex
	known    map[string]string // memory: compute_hash(text) -> text
	convs    map[string]string // conversation id -> its protocol document
	requests []map[string]any  // every decoded POST, for the test to read
}

func newSDKReceiver(t *testing.T, answer func(document string, body any) any) (*sdkReceiver, string) {
	r := &sdkReceiver{answer: answer, known: map[string]string{}, convs: map[string]string{}}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func (r *sdkReceiver) lastRequest() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.requests) == 0 {
		return nil
	}
	return r.requests[len(r.requests)-1]
}

func (r *sdkReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch {
	case req.URL.Path == "/" && req.Method == http.MethodPost:
		r.main(w, req)
	case strings.HasPrefix(req.URL.Path, "/conversations/") && (req.Method == http.MethodPost || req.Method == http.MethodDelete):
		r.continueConversation(w, req, strings.TrimPrefix(req.URL.Path, "/conversations/"))
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, flaskNotFound)
	}
}

// jsonify writes Flask's jsonify(v).
func jsonify(w http.ResponseWriter, v pyDict) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, flaskJSONify(v))
}

// flaskJSON is request.json: Flask refuses a body not sent as JSON.
func (r *sdkReceiver) flaskJSON(req *http.Request) (map[string]any, error) {
	if req.Header.Get("Content-Type") != "application/json" {
		return nil, errors.New("415 Unsupported Media Type: Did not attempt to load JSON data because the request Content-Type was not 'application/json'.")
	}
	var data map[string]any
	if err := json.NewDecoder(req.Body).Decode(&data); err != nil {
		return nil, errors.New("400 Bad Request: The browser (or proxy) sent a request that this server could not understand.")
	}
	r.mu.Lock()
	r.requests = append(r.requests, data)
	r.mu.Unlock()
	return data, nil
}

func (r *sdkReceiver) main(w http.ResponseWriter, req *http.Request) {
	data, err := r.flaskJSON(req)
	var document string
	if err == nil {
		document, err = r.createConversation(data)
	}
	if err == nil {
		if _, ok := data["body"]; !ok {
			err = errors.New("'body'") // str(KeyError('body'))
		}
	}
	if err != nil { // except Exception as e: jsonify({"status": "error", "message": str(e)})
		jsonify(w, pyDict{{"status", "error"}, {"message", err.Error()}})
		return
	}
	if m, _ := data["multiround"].(bool); m {
		id := uuid4()
		r.mu.Lock()
		r.convs[id] = document
		r.mu.Unlock()
		jsonify(w, pyDict{{"status", "success"}, {"conversationId", id}, {"body", pyValue(r.answer(document, data["body"]))}})
		return
	}
	jsonify(w, pyDict{{"status", "success"}, {"body", pyValue(r.answer(document, data["body"]))}})
}

// createConversation is Receiver.create_conversation with every protocol
// found adequate: it returns the protocol document ("" for natural
// language and negotiation).
func (r *sdkReceiver) createConversation(data map[string]any) (string, error) {
	hash, hasHash := data["protocolHash"]
	sources, hasSources := data["protocolSources"]
	if !hasHash {
		return "", errors.New("'protocolHash'")
	}
	if !hasSources {
		return "", errors.New("'protocolSources'")
	}
	if hash == "negotiation" || hash == nil {
		return "", nil
	}
	h, _ := hash.(string)
	r.mu.Lock()
	doc, known := r.known[h]
	r.mu.Unlock()
	if known {
		return doc, nil
	}
	list, ok := sources.([]any)
	if !ok {
		return "", errors.New("'NoneType' object is not iterable")
	}
	for _, s := range list {
		src, _ := s.(string)
		if text, ok := downloadAndVerify(h, src); ok {
			r.mu.Lock()
			r.known[h] = text
			r.mu.Unlock()
			return text, nil
		}
	}
	return "", errors.New("Failed to download protocol")
}

// downloadAndVerify is agora.utils.download_and_verify_protocol: the two
// data: URI prefixes it knows, else an HTTP GET; then an exact comparison
// of compute_hash(text) with the hash as sent.
func downloadAndVerify(hash, source string) (string, bool) {
	const b64Prefix, textPrefix = "data:text/plain;charset=utf-8;base64,", "data:text/plain;charset=utf-8,"
	var text string
	switch {
	case strings.HasPrefix(source, b64Prefix):
		raw, err := base64.StdEncoding.DecodeString(source[len(b64Prefix):])
		if err != nil {
			return "", false
		}
		text = string(raw)
	case strings.HasPrefix(source, textPrefix):
		t, err := url.PathUnescape(source[len(textPrefix):])
		if err != nil {
			return "", false
		}
		text = t
	case strings.HasPrefix(source, "data:"):
		return "", false
	default:
		resp, err := http.Get(source)
		if err != nil {
			return "", false
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return "", false
		}
		text = string(raw)
	}
	return text, sdkHash(text) == hash
}

func (r *sdkReceiver) continueConversation(w http.ResponseWriter, req *http.Request, id string) {
	if req.Method == http.MethodDelete {
		// "The deletion will succeed even if the conversation does not exist"
		r.mu.Lock()
		delete(r.convs, id)
		r.mu.Unlock()
		jsonify(w, pyDict{{"status", "success"}})
		return
	}
	data, err := r.flaskJSON(req)
	if err != nil { // outside the try: Flask's 500 page
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	r.mu.Lock()
	doc, ok := r.convs[id]
	r.mu.Unlock()
	if !ok {
		jsonify(w, pyDict{{"status", "error"}, {"message", "Conversation not found."}})
		return
	}
	jsonify(w, pyDict{{"status", "success"}, {"body", pyValue(r.answer(doc, data["body"]))}})
}

// pyValue turns what the scripted responder returns into pyEncode's types.
func pyValue(v any) any {
	if m, ok := v.(map[string]any); ok {
		d := pyDict{}
		for k, x := range m {
			d = append(d, pyKV{k, pyValue(x)})
		}
		return d
	}
	return v
}

func uuid4() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// recordingTarget is any other agent: it serves the given well-known
// documents (path -> JSON), records each transaction and answers reply.
type recordingTarget struct {
	mu    sync.Mutex
	hits  []string // well-known paths read, in order
	last  map[string]any
	reply string
}

func newRecordingTarget(t *testing.T, wellKnown map[string]string, reply string) (*recordingTarget, string) {
	rt := &recordingTarget{reply: reply}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if r.Method == http.MethodGet {
			rt.hits = append(rt.hits, r.URL.Path)
			doc, ok := wellKnown[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, doc)
			return
		}
		json.NewDecoder(r.Body).Decode(&rt.last)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, rt.reply)
	}))
	t.Cleanup(srv.Close)
	return rt, srv.URL
}

// fakeRegistry answers the two registry calls `agent send` makes: batch
// resolve and the raw document.
func fakeRegistry(t *testing.T, doc []byte, d protocol.Digest) string {
	var base string // set before the server starts, read by its handler
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/resolve":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"results": []any{map[string]any{
				"hash": d.Hex(), "found": true, "hex": d.Hex(), "base64": d.Base64(),
				"sources": []string{base + "/protocol/" + d.Hex()}, "title": "Weather"}}})
		case r.Method == http.MethodGet && r.URL.Path == "/protocol/"+d.Hex():
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			w.Write(doc)
		default:
			http.NotFound(w, r)
		}
	}))
	base = "http://" + srv.Listener.Addr().String()
	srv.Start()
	t.Cleanup(srv.Close)
	return base
}

// runSend runs the agent binary and returns its stdout, stderr and exit
// status.
func runSend(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"send", "--timeout", "30s"}, args...)...)
	cmd.Env = append(os.Environ(), "AGENT_REGISTRIES=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(stdout.String()), stderr.String(), code
}

func weatherAnswer(_ string, body any) any {
	if s, _ := body.(string); strings.Contains(s, "London") {
		return londonAnswer
	}
	return `{"error": "unknown location"}`
}

func TestAgentSendInterop(t *testing.T) {
	bin := buildBinary(t, "./cmd/agent")
	weatherFile := "../../examples/protocols/weather-v1.md"
	echoFile := "../../examples/protocols/echo-v1.md"
	weather, wd := weatherDoc(t)
	echoRaw, err := os.ReadFile(echoFile)
	if err != nil {
		t.Fatal(err)
	}
	es, _ := protocol.Hash(echoRaw)
	ed := es.SHA1

	t.Run("SDK receiver, data URI: the hash goes in Base64", func(t *testing.T) {
		sdk, target := newSDKReceiver(t, weatherAnswer)
		out, errOut, code := runSend(t, bin, "--to", target, "--protocol", weatherFile, "--body", londonQuery)
		if code != 0 || out != londonAnswer {
			t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
		if got := sdk.lastRequest()["protocolHash"]; got != wd.Base64() {
			t.Fatalf("sent protocolHash %v, want %s", got, wd.Base64())
		}
	})
	t.Run("SDK receiver, registry URL: the hash goes in Base64", func(t *testing.T) {
		sdk, target := newSDKReceiver(t, weatherAnswer)
		registry := fakeRegistry(t, weather, wd)
		out, errOut, code := runSend(t, bin, "--to", target, "--registry", registry, "--protocol", weatherFile, "--body", londonQuery)
		sources, _ := sdk.lastRequest()["protocolSources"].([]any)
		if code != 0 || out != londonAnswer || len(sources) != 1 || !strings.HasPrefix(sources[0].(string), registry) {
			t.Fatalf("exit %d, stdout %q, stderr %s, request %v", code, out, errOut, sdk.lastRequest())
		}
	})
	t.Run("SDK receiver, --hash-spelling hex: its error and message are reported", func(t *testing.T) {
		_, target := newSDKReceiver(t, weatherAnswer)
		_, errOut, code := runSend(t, bin, "--to", target, "--hash-spelling", "hex", "--protocol", weatherFile, "--body", londonQuery)
		if code != 1 || !strings.Contains(errOut, `status: failure, error: "Failed to download protocol"`) {
			t.Fatalf("exit %d, stderr %s", code, errOut)
		}
	})
	t.Run("SDK receiver, multi-round with an object body and a bare DELETE answer", func(t *testing.T) {
		answer := func(doc string, body any) any {
			return map[string]any{"temperature": 11, "precipitation": 12, "weatherCondition": "rainy"}
		}
		const sorted = `{"precipitation":12,"temperature":11,"weatherCondition":"rainy"}` // jsonify sorts keys
		_, target := newSDKReceiver(t, answer)
		out, errOut, code := runSend(t, bin, "--to", target, "--multiround", "--protocol", weatherFile, "--body", londonQuery)
		var id string
		if _, after, ok := strings.Cut(errOut, "conversationId: "); ok {
			id, _, _ = strings.Cut(after, "\n")
		}
		if code != 0 || out != sorted || len(id) != 36 {
			t.Fatalf("open: exit %d, stdout %q, stderr %s", code, out, errOut)
		}
		if out, errOut, code = runSend(t, bin, "--to", target, "--conversation", id, "--body", londonQuery); code != 0 || out != sorted {
			t.Fatalf("follow-up: exit %d, stdout %q, stderr %s", code, out, errOut)
		}
		if out, errOut, code = runSend(t, bin, "--to", target, "--end", id); code != 0 || out != "" {
			t.Fatalf("end: exit %d, stdout %q, stderr %s", code, out, errOut)
		}
		if _, errOut, code = runSend(t, bin, "--to", target, "--conversation", id, "--body", "x"); code != 1 || !strings.Contains(errOut, "Conversation not found.") {
			t.Fatalf("after end: exit %d, stderr %s", code, errOut)
		}
	})
	t.Run("hex keys in /.wellknown: the hash goes in hex", func(t *testing.T) {
		seed, target := newRecordingTarget(t, map[string]string{"/.wellknown": `{"` + wd.Hex() + `": []}`}, `{"status": "success", "body": "ok"}`)
		if _, errOut, code := runSend(t, bin, "--to", target, "--protocol", weatherFile, "--body", londonQuery); code != 0 || seed.last["protocolHash"] != wd.Hex() {
			t.Fatalf("exit %d, sent %v, stderr %s", code, seed.last, errOut)
		}
	})
	t.Run("/.well-known/agora is read first, its keys spelled as listed", func(t *testing.T) {
		agora := `{"supported": {"` + ed.Base64() + `": []}, "unsupported": ["` + wd.Hex() + `"], "kinds": [], "hashSpellings": ["base64"], "name": "x", "description": "", "registries": []}`
		target, url := newRecordingTarget(t, map[string]string{
			"/.well-known/agora": agora,
			"/.wellknown":        `{"` + wd.Hex() + `": []}`, // an older list: must not win
		}, `{"status": "success", "body": "ok"}`)
		_, errOut, code := runSend(t, bin, "--to", url, "--protocol", weatherFile, "--protocol", echoFile, "--body", "hi")
		if code != 0 || target.last["protocolHash"] != ed.Base64() || target.hits[0] != "/.well-known/agora" {
			t.Fatalf("exit %d, sent %v, read %v, stderr %s", code, target.last, target.hits, errOut)
		}
	})
	t.Run("spec v0.2 and seed refusals are reported", func(t *testing.T) {
		for reply, want := range map[string]string{
			`{"status": "failure", "error": "Unsupported protocol"}`:    `status: failure, error: "Unsupported protocol"`,
			`{"status": "rejected"}`:                                    `status: rejected`,
			`{"status": "error", "message": "Conversation not found."}`: `status: failure, error: "Conversation not found."`,
		} {
			_, target := newRecordingTarget(t, nil, reply)
			if _, errOut, code := runSend(t, bin, "--to", target, "--protocol", weatherFile, "--body", londonQuery); code != 1 || !strings.Contains(errOut, want) {
				t.Errorf("%s: exit %d, stderr %s", reply, code, errOut)
			}
		}
	})
}
