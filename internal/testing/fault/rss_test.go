package fault

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// rssSampler reads a process's resident set size (VmRSS) once a second.
type rssSampler struct {
	pid     int
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	samples []int64 // bytes
	err     error
}

func sampleRSS(pid int) *rssSampler {
	s := &rssSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	s.take()
	go func() {
		defer close(s.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				s.take()
				return
			case <-tick.C:
				s.take()
			}
		}
	}()
	return s
}

func (s *rssSampler) take() {
	v, err := vmRSS(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return
	}
	s.samples = append(s.samples, v)
}

// finish stops sampling and returns the first, highest and last sample.
func (s *rssSampler) finish() (start, peak, end int64, n int, err error) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, 0, 0, 0, s.err
	}
	for _, v := range s.samples {
		peak = max(peak, v)
	}
	return s.samples[0], peak, s.samples[len(s.samples)-1], len(s.samples), nil
}

// vmRSS reads VmRSS from /proc/<pid>/status.
func vmRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest) // "12345 kB"
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, err
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
