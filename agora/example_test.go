package agora_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/agora-registry/registry/agora"
)

const echoDoc = "---\nname: Echo\ndescription: Answers the body unchanged.\nmultiround: false\n---\n# Echo\n\nThe answer is the request's body.\n"

var echo = agora.RoutineFunc(func(_ context.Context, req agora.Request) (string, error) {
	return req.Body, nil
})

// A receiver answering one protocol, served over HTTP.
func ExampleHandler() {
	dir, _ := os.MkdirTemp("", "agora-example")
	defer os.RemoveAll(dir)
	resolver, _ := agora.NewResolver(agora.ResolverOptions{CacheDir: dir})
	h, _ := agora.NewHandler(agora.Options{Name: "echo-agent", Resolver: resolver})
	d, _ := h.HandleDocument([]byte(echoDoc), echo)
	srv := httptest.NewServer(h)
	defer srv.Close()

	hash := d.Base64()
	reply, _ := agora.Send(context.Background(), http.DefaultClient, srv.URL,
		agora.Outgoing{ProtocolHash: &hash, ProtocolSources: []string{}, Body: "hello"})
	fmt.Println(reply.Status, reply.Body)
	// Output: success hello
}

// A sender reading the target's well-known documents, choosing a protocol
// it implements and sending it with its document inline.
func ExampleChooseProtocol() {
	dir, _ := os.MkdirTemp("", "agora-example")
	defer os.RemoveAll(dir)
	resolver, _ := agora.NewResolver(agora.ResolverOptions{CacheDir: dir})
	h, _ := agora.NewHandler(agora.Options{Resolver: resolver})
	h.HandleDocument([]byte(echoDoc), echo)
	srv := httptest.NewServer(h)
	defer srv.Close()

	ctx := context.Background()
	sums, _ := agora.Hash([]byte(echoDoc))
	mine := agora.Candidate{Digest: sums.SHA1, Document: []byte(echoDoc), Title: "Echo", Implemented: true}
	wk, _ := agora.FetchWellKnown(ctx, http.DefaultClient, srv.URL)
	choice, _ := agora.ChooseProtocol(wk, []agora.Candidate{mine}, "echo a word")
	hash := agora.WireHash(wk, choice.Candidate.Digest, "")
	reply, _ := agora.Send(ctx, http.DefaultClient, srv.URL, agora.Outgoing{
		ProtocolHash: &hash, ProtocolSources: agora.SourcesFor(ctx, choice.Candidate, nil, false), Body: "ping"})
	fmt.Println(choice.Reason+":", reply.Body)
	// Output: listed by the target: ping
}

// A resolver turning a hash and a sender's sources into a verified
// document; a source that lies about the document is skipped.
func ExampleResolver() {
	dir, _ := os.MkdirTemp("", "agora-example")
	defer os.RemoveAll(dir)
	r, _ := agora.NewResolver(agora.ResolverOptions{CacheDir: dir})
	sums, _ := agora.Hash([]byte(echoDoc))
	got, err := r.Resolve(context.Background(), sums.SHA1,
		[]string{agora.DataURI([]byte("not the document")), agora.DataURI([]byte(echoDoc))})
	fmt.Println(err == nil, string(got.Document) == echoDoc)
	// Output: true true
}

// Both spellings of a hash name the same digest.
func ExampleParseDigest() {
	a, _ := agora.ParseDigest("a4bec75a54a79f636be6ddcacd642b94f5af1ec9")
	b, _ := agora.ParseDigest(a.Base64())
	fmt.Println(a == b, a.Base64())
	// Output: true pL7HWlSnn2Nr5t3KzWQrlPWvHsk=
}
