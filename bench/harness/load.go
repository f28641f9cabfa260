package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Load describes one measured attack.
type Load struct {
	Targeter    vegeta.Targeter
	Connections int           // fixed connection (and, at saturation, worker) count
	Rate        float64       // requests/s; 0 means saturation
	Duration    time.Duration // bounded; never 0
	Expect      int           // the status code that counts as success
	PID         int           // server process whose memory is sampled; 0 for none
	// CPUPID is the process whose CPU time, children included, is
	// measured, when it is not PID (nginx: its master, whose RSS says
	// nothing); 0 means PID.
	CPUPID int
}

// Measurement is the outcome of one attack.
type Measurement struct {
	Server      string         `json:"server"` // "registry", "net/http", "nginx"
	Mode        string         `json:"mode"`   // "saturation" or "fixed"
	Connections int            `json:"connections"`
	TargetRate  float64        `json:"target_rate,omitempty"`
	Requests    int            `json:"requests"`
	Errors      int            `json:"errors"` // transport errors and unexpected statuses
	Codes       map[string]int `json:"codes"`
	FirstError  string         `json:"first_error,omitempty"`
	RPS         float64        `json:"rps"` // successful responses per second
	P50ms       float64        `json:"p50_ms"`
	P95ms       float64        `json:"p95_ms"`
	P99ms       float64        `json:"p99_ms"`
	MaxMs       float64        `json:"max_ms"`
	Memory      Memory         `json:"memory"`
	Seconds     float64        `json:"seconds"`
	// CPUus is the server's CPU time (its process and children: not
	// PostgreSQL's) per successful response, in µs; 0 when not measured.
	CPUus float64 `json:"cpu_us_per_response,omitempty"`
}

// maxFixedWorkers bounds the goroutines vegeta may start to keep a fixed
// rate when the server falls behind (open loop: latency then includes the
// queueing the server caused, which is the point of a fixed rate).
const maxFixedWorkers = 2000

// loopbackClients is vegeta's client with each new connection dialled from
// the next of n loopback addresses (127.0.0.2, 127.0.0.3, …), so the n
// connections of a run are n clients as the registry's per-client bounds
// see them (one search or batch lookup at a time per client), as n users
// would be. The options after it in Attack set the rest of its transport.
func loopbackClients(n int) *http.Client {
	var next atomic.Uint32
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		i := next.Add(1) % uint32(max(n, 1))
		d := net.Dialer{KeepAlive: 30 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, byte(i/250), byte(2+i%250))}}
		conn, err := d.DialContext(ctx, network, addr)
		if errors.Is(err, syscall.EADDRNOTAVAIL) {
			// A system with only 127.0.0.1 on loopback (macOS): one client.
			d.LocalAddr = nil
			return d.DialContext(ctx, network, addr)
		}
		return conn, err
	}
	return &http.Client{Transport: &http.Transport{DialContext: dial}}
}

// Attack runs one load and measures it. Latency percentiles are exact (every
// result's latency is kept and sorted), not estimated.
func Attack(ctx context.Context, server string, l Load) Measurement {
	opts := []func(*vegeta.Attacker){
		vegeta.Client(loopbackClients(l.Connections)),
		vegeta.Connections(l.Connections),
		vegeta.MaxConnections(l.Connections),
		vegeta.KeepAlive(true),
		vegeta.HTTP2(false),
		vegeta.Timeout(30 * time.Second),
		vegeta.MaxBody(0), // bodies are read fully and discarded
		vegeta.Redirects(vegeta.NoFollow),
	}
	pacer := vegeta.Rate{Freq: 0}
	mode := "saturation"
	if l.Rate > 0 {
		mode = "fixed"
		pacer = vegeta.Rate{Freq: int(l.Rate + 0.5), Per: time.Second}
		if pacer.Freq < 1 {
			pacer.Freq = 1
		}
		opts = append(opts, vegeta.Workers(uint64(l.Connections)), vegeta.MaxWorkers(maxFixedWorkers))
	} else {
		opts = append(opts, vegeta.Workers(uint64(l.Connections)), vegeta.MaxWorkers(uint64(l.Connections)))
	}
	atk := vegeta.NewAttacker(opts...)
	stopMem := SampleMemory(ctx, l.PID)
	cpuPID := l.CPUPID
	if cpuPID == 0 {
		cpuPID = l.PID
	}
	cpuBefore := ProcessCPU(cpuPID)
	m := Measurement{Server: server, Mode: mode, Connections: l.Connections, TargetRate: l.Rate, Codes: map[string]int{}}
	lat := make([]time.Duration, 0, 1<<16)
	start := time.Now()
	for res := range atk.Attack(l.Targeter, pacer, l.Duration, server) {
		if ctx.Err() != nil {
			atk.Stop()
		}
		m.Requests++
		code := strconv.Itoa(int(res.Code))
		if res.Code == 0 {
			code = "transport"
		}
		m.Codes[code]++
		if int(res.Code) != l.Expect {
			m.Errors++
			if m.FirstError == "" {
				m.FirstError = fmt.Sprintf("%s %s: %d %s", res.Method, res.URL, res.Code, res.Error)
			}
			continue
		}
		lat = append(lat, res.Latency)
	}
	elapsed := time.Since(start)
	m.Memory = stopMem()
	if cpu := ProcessCPU(cpuPID) - cpuBefore; cpu > 0 && len(lat) > 0 {
		m.CPUus = float64(cpu.Microseconds()) / float64(len(lat))
	}
	m.Seconds = elapsed.Seconds()
	m.RPS = float64(len(lat)) / elapsed.Seconds()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	m.P50ms, m.P95ms, m.P99ms = ms(quantile(lat, 0.50)), ms(quantile(lat, 0.95)), ms(quantile(lat, 0.99))
	if len(lat) > 0 {
		m.MaxMs = ms(lat[len(lat)-1])
	}
	return m
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// header builds a request header from key/value pairs.
func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}
