package harness

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a server the harness started and must stop.
type Process struct {
	Name string
	Cmd  *exec.Cmd
	Log  string
	done chan struct{}
	err  error
}

// StartProcess starts a command with its output in logDir/name.log. The
// child is killed if the harness dies (Pdeathsig), so no server outlives a
// crashed run.
func StartProcess(name, logDir string, env []string, bin string, args ...string) (*Process, error) {
	logPath := filepath.Join(logDir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, Cmd: cmd, Log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// PID is the process id.
func (p *Process) PID() int { return p.Cmd.Process.Pid }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop asks the process to end (SIGTERM), then kills it after 10 s.
func (p *Process) Stop() {
	if p.Exited() {
		return
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// LogTail returns the end of the process log, for error messages.
func (p *Process) LogTail() string {
	b, _ := os.ReadFile(p.Log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// WaitReady polls url until it answers 200 or the deadline passes, and
// returns how long that took from since.
func (p *Process) WaitReady(url string, since time.Time, limit time.Duration) (time.Duration, error) {
	client := &http.Client{Timeout: time.Second}
	deadline := since.Add(limit)
	for time.Now().Before(deadline) {
		if p.Exited() {
			return 0, fmt.Errorf("%s exited before it was ready: %v\n%s", p.Name, p.err, p.LogTail())
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(since), nil
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return 0, fmt.Errorf("%s not ready at %s after %s\n%s", p.Name, url, limit, p.LogTail())
}

// FreeAddr returns a loopback address with a port nobody listens on now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Memory is a process's resident memory in KiB.
type Memory struct {
	RSSKiB  int64 `json:"rss_kib"`
	PeakKiB int64 `json:"peak_kib"` // highest sampled VmRSS while measured
	HWMKiB  int64 `json:"hwm_kib"`  // kernel's VmHWM since start
}

// readStatus reads VmRSS and VmHWM of pid.
func readStatus(pid int) (rss, hwm int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for key, dst := range map[string]*int64{"VmRSS:": &rss, "VmHWM:": &hwm} {
			if rest, ok := strings.CutPrefix(line, key); ok {
				fields := strings.Fields(rest)
				if len(fields) > 0 {
					*dst, _ = strconv.ParseInt(fields[0], 10, 64)
				}
			}
		}
	}
	return rss, hwm
}

// SampleMemory samples pid's VmRSS every 100 ms until ctx ends and returns
// the peak, the last value and VmHWM. pid 0 samples nothing.
func SampleMemory(ctx context.Context, pid int) func() Memory {
	var mu sync.Mutex
	var m Memory
	stopped := make(chan struct{})
	sample := func() {
		rss, hwm := readStatus(pid)
		mu.Lock()
		if rss > 0 {
			m.RSSKiB = rss
			m.HWMKiB = hwm
		}
		if rss > m.PeakKiB {
			m.PeakKiB = rss
		}
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(stopped)
		if pid == 0 {
			return
		}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			sample()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() Memory {
		cancel()
		<-stopped
		if pid != 0 {
			sample()
		}
		mu.Lock()
		defer mu.Unlock()
		return m
	}
}
