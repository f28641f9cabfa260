package agora

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// The SSRF matrix. Safety rule for this file: nothing here may send a packet
// to a non-loopback address. Every row that names a private, link-local,
// metadata or otherwise reserved address must be refused by the client's
// own guard (the dial-time Control hook runs before connect(2), and
// checkHost runs before any lookup), so each such row asserts the guard's
// own error, fetch_blocked; anything that really connects targets
// 127.0.0.0/8 servers started by the test. Names resolve through testDNS, a
// DNS server on 127.0.0.1, never the machine's resolver.

// testDNS answers A and AAAA queries from a fixed table; other names get
// NXDOMAIN. It counts queries so tests can show a name never reached DNS.
type testDNS struct {
	conn    net.PacketConn
	records map[string][]netip.Addr // fully qualified, lower case
	queries atomic.Int32
	mu      sync.Mutex
	asked   []string
}

func startTestDNS(t *testing.T, records map[string][]string) *testDNS {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &testDNS{conn: conn, records: map[string][]netip.Addr{}}
	for name, addrs := range records {
		for _, a := range addrs {
			d.records[strings.ToLower(name)+"."] = append(d.records[strings.ToLower(name)+"."], netip.MustParseAddr(a))
		}
	}
	go d.serve()
	t.Cleanup(func() { conn.Close() })
	return d
}

func (d *testDNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		d.queries.Add(1)
		d.mu.Lock()
		d.asked = append(d.asked, q.Name.String())
		d.mu.Unlock()
		answer := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
		answer.EnableCompression()
		addrs, known := d.records[strings.ToLower(q.Name.String())]
		if !known {
			answer = dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RCode: dnsmessage.RCodeNameError})
		}
		_ = answer.StartQuestions()
		_ = answer.Question(q)
		_ = answer.StartAnswers()
		rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}
		for _, a := range addrs {
			switch {
			case q.Type == dnsmessage.TypeA && a.Is4():
				_ = answer.AResource(rh, dnsmessage.AResource{A: a.As4()})
			case q.Type == dnsmessage.TypeAAAA && !a.Is4():
				_ = answer.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
			}
		}
		msg, err := answer.Finish()
		if err == nil {
			_, _ = d.conn.WriteTo(msg, from)
		}
	}
}

// resolver sends every lookup to the test DNS server.
func (d *testDNS) resolver() *net.Resolver {
	addr := d.conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dialer net.Dialer
		return dialer.DialContext(ctx, "udp", addr)
	}}
}

// ssrfNames are the test zone: names pointing at addresses a stranger must
// never make the agent reach.
var ssrfNames = map[string][]string{
	"loopback.ssrf.test":    {"127.0.0.1"},
	"loopback6.ssrf.test":   {"::1"},
	"mapped.ssrf.test":      {"::ffff:127.0.0.1"},
	"private10.ssrf.test":   {"10.0.0.5"},
	"private172.ssrf.test":  {"172.16.3.4"},
	"private192.ssrf.test":  {"192.168.0.10"},
	"metadata.ssrf.test":    {"169.254.169.254"},
	"metadata6.ssrf.test":   {"fd00:ec2::254"},
	"cgnat.ssrf.test":       {"100.64.1.1"},
	"ula.ssrf.test":         {"fc00::7"},
	"linklocal6.ssrf.test":  {"fe80::1"},
	"unspecified.ssrf.test": {"0.0.0.0"},
	// A name with several addresses is refused if every one is blocked:
	// the dialer tries them in turn and the guard refuses each.
	"mixed.ssrf.test": {"10.9.9.9", "127.0.0.1", "::1"},
	// The allow-listed name used by the positive rows.
	"allowed.ssrf.test": {"127.0.0.1"},
}

type ssrfRow struct {
	name string
	url  string
	want error  // the sentinel the client must return
	why  string // words the message must contain (a clear reason)
}

// ssrfMatrix is the table of refused fetches; docs/SECURITY.md counts it.
func ssrfMatrix() []ssrfRow {
	blockedIP := func(name, u string) ssrfRow {
		return ssrfRow{name, u, ErrFetchBlocked, "private, loopback or reserved"}
	}
	numeric := func(name, u string) ssrfRow { return ssrfRow{name, u, ErrFetchBlocked, "non-standard spelling"} }
	scheme := func(name, u string) ssrfRow { return ssrfRow{name, u, ErrFetchScheme, "only http and https"} }
	return []ssrfRow{
		// Loopback in every spelling.
		blockedIP("loopback v4", "http://127.0.0.1:9/"),
		blockedIP("loopback v4 high", "http://127.255.255.254:9/"),
		blockedIP("loopback v6", "http://[::1]:9/"),
		blockedIP("localhost", "http://localhost:9/"),
		blockedIP("IPv4-mapped IPv6 dotted", "http://[::ffff:127.0.0.1]:9/"),
		blockedIP("IPv4-mapped IPv6 hex", "http://[::ffff:7f00:1]:9/"),
		blockedIP("unspecified v4", "http://0.0.0.0:9/"),
		blockedIP("unspecified v6", "http://[::]:9/"),
		numeric("decimal", "http://2130706433/"),
		numeric("hex", "http://0x7f000001/"),
		numeric("octal dotted", "http://0177.0.0.1/"),
		numeric("hex dotted", "http://0x7f.0x0.0x0.0x1/"),
		numeric("short form", "http://127.1/"),
		numeric("octal whole", "http://017700000001/"),
		numeric("decimal metadata", "http://2852039166/latest/meta-data/"),
		// Private, link-local, metadata, CGNAT and other reserved ranges.
		blockedIP("private 10/8", "http://10.0.0.1/"),
		blockedIP("private 172.16/12", "http://172.16.0.1/"),
		blockedIP("private 192.168/16", "http://192.168.1.1/"),
		blockedIP("link-local v4", "http://169.254.1.1/"),
		blockedIP("cloud metadata v4", "http://169.254.169.254/latest/meta-data/"),
		blockedIP("cloud metadata v6 (AWS)", "http://[fd00:ec2::254]/latest/meta-data/"),
		blockedIP("link-local v6", "http://[fe80::1]/"),
		blockedIP("unique local v6", "http://[fc00::1]/"),
		blockedIP("CGNAT 100.64/10 low", "http://100.64.0.1/"),
		blockedIP("CGNAT 100.64/10 high", "http://100.127.255.254/"),
		blockedIP("IETF protocol assignments", "http://192.0.0.8/"),
		blockedIP("benchmarking 198.18/15", "http://198.18.0.1/"),
		blockedIP("documentation 192.0.2/24", "http://192.0.2.1/"),
		blockedIP("reserved 240/4", "http://240.0.0.1/"),
		blockedIP("broadcast", "http://255.255.255.255/"),
		blockedIP("multicast", "http://224.0.0.1/"),
		blockedIP("NAT64 of loopback", "http://[64:ff9b::7f00:1]/"),
		blockedIP("6to4 of private", "http://[2002:a00:1::]/"),
		// DNS names resolving to blocked addresses (test resolver).
		blockedIP("name -> 127.0.0.1", "http://loopback.ssrf.test:9/"),
		blockedIP("name -> ::1", "http://loopback6.ssrf.test:9/"),
		blockedIP("name -> ::ffff:127.0.0.1", "http://mapped.ssrf.test:9/"),
		blockedIP("name -> 10.0.0.5", "http://private10.ssrf.test/"),
		blockedIP("name -> 172.16.3.4", "http://private172.ssrf.test/"),
		blockedIP("name -> 192.168.0.10", "http://private192.ssrf.test/"),
		blockedIP("name -> 169.254.169.254", "http://metadata.ssrf.test/"),
		blockedIP("name -> fd00:ec2::254", "http://metadata6.ssrf.test/"),
		blockedIP("name -> 100.64.1.1", "http://cgnat.ssrf.test/"),
		blockedIP("name -> fc00::7", "http://ula.ssrf.test/"),
		blockedIP("name -> fe80::1", "http://linklocal6.ssrf.test/"),
		blockedIP("name -> 0.0.0.0", "http://unspecified.ssrf.test:9/"),
		blockedIP("name -> several blocked", "http://mixed.ssrf.test:9/"),
		// Schemes other than http and https.
		scheme("file", "file:///etc/passwd"),
		scheme("gopher", "gopher://127.0.0.1:70/_GET"),
		scheme("ftp", "ftp://127.0.0.1/pub"),
		scheme("data", "data:text/plain,hello"),
		scheme("javascript", "javascript:alert(1)"),
		scheme("dict", "dict://127.0.0.1:11211/stats"),
		scheme("scheme-relative", "//127.0.0.1/"),
		{"no host", "http:///path", ErrFetchScheme, "no host"},
	}
}

func newMatrixClient(t *testing.T, dns *testDNS, allow ...string) *Fetcher {
	t.Helper()
	c, err := NewFetcher(FetchPolicy{Allow: allow, Resolver: dns.resolver(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func assertRefused(t *testing.T, err error, want error, why string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	e := asError(err)
	if e == nil || !strings.Contains(e.Message, why) {
		t.Fatalf("the refusal %q does not give the reason %q", err, why)
	}
}

func TestSSRFMatrix(t *testing.T) {
	dns := startTestDNS(t, ssrfNames)
	client := newMatrixClient(t, dns)
	rows := ssrfMatrix()
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			before := dns.queries.Load()
			_, err := client.Get(context.Background(), row.url, 1024)
			assertRefused(t, err, row.want, row.why)
			if row.want == ErrFetchBlocked && row.why == "non-standard spelling" && dns.queries.Load() != before {
				t.Fatalf("the numeric host %s was looked up in DNS", row.url)
			}
		})
	}
	t.Logf("SSRF matrix: %d refused rows", len(rows))
}

// fetcher.HTTP alone, as internal/client sends through it, refuses every row
// too: the checks of Get/Do live in its transport, not only in Do.
func TestSSRFMatrixThroughHTTPClient(t *testing.T) {
	dns := startTestDNS(t, ssrfNames)
	client := newMatrixClient(t, dns)
	for _, row := range ssrfMatrix() {
		t.Run(row.name, func(t *testing.T) {
			before := dns.queries.Load()
			req, err := http.NewRequest(http.MethodGet, row.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.HTTP.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			assertRefused(t, err, row.want, row.why)
			if row.why == "non-standard spelling" && dns.queries.Load() != before {
				t.Fatalf("the numeric host %s was looked up in DNS", row.url)
			}
		})
	}
}

// The numeric spellings are refused in redirects too, and every redirect hop
// goes through the guard: an allowed server cannot bounce the agent anywhere.
func TestSSRFRedirectsFromAnAllowedHost(t *testing.T) {
	dns := startTestDNS(t, ssrfNames)
	var innerHits atomic.Int32
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		innerHits.Add(1)
		w.Write([]byte("internal secret"))
	}))
	defer inner.Close()
	innerPort := inner.Listener.Addr().(*net.TCPAddr).Port
	targets := []ssrfRow{
		{"to metadata", "http://169.254.169.254/latest/meta-data/", ErrFetchBlocked, "private, loopback or reserved"},
		{"to private", "http://10.0.0.1/", ErrFetchBlocked, "private, loopback or reserved"},
		{"to another loopback port", inner.URL, ErrFetchBlocked, "private, loopback or reserved"},
		{"to a name for loopback", fmt.Sprintf("http://loopback.ssrf.test:%d/", innerPort), ErrFetchBlocked, "private, loopback or reserved"},
		{"to a decimal IP", fmt.Sprintf("http://2130706433:%d/", innerPort), ErrFetchBlocked, "non-standard spelling"},
		{"to file", "file:///etc/passwd", ErrFetchScheme, "only http and https"},
		{"to gopher", "gopher://127.0.0.1:70/", ErrFetchScheme, "only http and https"},
	}
	for _, tt := range targets {
		t.Run(tt.name, func(t *testing.T) {
			outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tt.url, http.StatusFound)
			}))
			defer outer.Close()
			u, _ := url.Parse(outer.URL)
			_, err := newMatrixClient(t, dns, u.Host).Get(context.Background(), outer.URL, 1024)
			assertRefused(t, err, tt.want, tt.why)
		})
	}
	if innerHits.Load() != 0 {
		t.Fatalf("a redirect reached the internal server %d times", innerHits.Load())
	}
}

func TestSSRFAllowListedHostWorks(t *testing.T) {
	dns := startTestDNS(t, ssrfNames)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("doc")) }))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	cases := []struct{ allow, url string }{
		{"allowed.ssrf.test", fmt.Sprintf("http://allowed.ssrf.test:%d/p", port)},
		{fmt.Sprintf("allowed.ssrf.test:%d", port), fmt.Sprintf("http://allowed.ssrf.test:%d/p", port)},
		{"127.0.0.0/8", fmt.Sprintf("http://allowed.ssrf.test:%d/p", port)},
		{"127.0.0.1", srv.URL + "/p"},
	}
	for _, c := range cases {
		body, err := newMatrixClient(t, dns, c.allow).Get(context.Background(), c.url, 1024)
		if err != nil || string(body) != "doc" {
			t.Fatalf("allow %q, GET %s: %q, %v", c.allow, c.url, body, err)
		}
	}
	// Allowing one name does not allow another name for the same address.
	_, err := newMatrixClient(t, dns, "allowed.ssrf.test").Get(context.Background(), fmt.Sprintf("http://loopback.ssrf.test:%d/", port), 1024)
	assertRefused(t, err, ErrFetchBlocked, "private, loopback or reserved")
}

func TestSSRFOversizeBodiesAreCut(t *testing.T) {
	const limit = 4096
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("x", 1024))
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", "1099511627776") // claims 1 TiB
		}
		for i := 0; i < 1<<20; i++ { // up to 1 GiB unless the client hangs up
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := newClient(t, "127.0.0.1")
	for _, path := range []string{"/endless", "/declared"} {
		_, err := c.Get(context.Background(), srv.URL+path, limit)
		assertRefused(t, err, ErrFetchTooLarge, "exceeds the limit of 4096 bytes")
	}
}

func TestSSRFSlowDripBodyIsCutByTheTotalTimeout(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	defer close(stop)
	// The drip stays far below the size limit; only the total-time budget
	// (which covers reading the body, not just the headers) can stop it.
	c, err := NewFetcher(FetchPolicy{Allow: []string{"127.0.0.1"}, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), srv.URL, 1<<20)
	if !errors.Is(err, ErrFetchFailed) {
		t.Fatalf("a never-ending slow body: err = %v, want fetch_failed", err)
	}
	if e := asError(err); e == nil || !(strings.Contains(e.Message, "timed out") || strings.Contains(e.Message, "Client.Timeout")) {
		t.Fatalf("the refusal %q does not say it timed out", err)
	}
}

// Names made of hex letters and digits are names, not numbers.
func TestCheckHostKeepsRealNames(t *testing.T) {
	for _, h := range []string{"cafe.de", "face.b00c", "1e100.net", "deadbeef.example", "0x.test", "a.b.c.d", "127.0.0.1", "::1", "10.0.0.1", "x1"} {
		if err := checkHost(h); err != nil {
			t.Errorf("checkHost(%q) = %v, want nil", h, err)
		}
	}
	for _, h := range []string{"2130706433", "0x7f000001", "0177.0.0.1", "127.1", "1.2.3", "0x7F.1", "00000000000000000000127.0.0.1.", "0xA9FEA9FE"} {
		if err := checkHost(h); !errors.Is(err, ErrFetchBlocked) {
			t.Errorf("checkHost(%q) = %v, want ErrFetchBlocked", h, err)
		}
	}
}
