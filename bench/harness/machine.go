package harness

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Machine describes where a run happened.
type Machine struct {
	CPUs       int    `json:"cpus"`
	CPUModel   string `json:"cpu_model"`
	MemoryMiB  int64  `json:"memory_mib"`
	Go         string `json:"go"`
	PostgreSQL string `json:"postgresql,omitempty"`
	Nginx      string `json:"nginx,omitempty"`
	Kernel     string `json:"kernel,omitempty"`
	// Load1 is the one-minute load average when the run started: above the
	// CPU count, the machine was busy within the last minute (other work,
	// or the run just before).
	Load1 float64 `json:"load1"`
}

// DescribeMachine collects the machine facts the report prints.
func DescribeMachine(ctx context.Context, adminDSN, nginxBin string) Machine {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version()}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		var n int64
		for _, r := range strings.Fields(kb)[0] {
			n = n*10 + int64(r-'0')
		}
		m.MemoryMiB = n / 1024
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			m.Load1, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	if adminDSN != "" {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, adminDSN); err == nil {
			_ = conn.QueryRow(ctx, "SHOW server_version").Scan(&m.PostgreSQL)
			conn.Close(ctx)
		}
	}
	if nginxBin != "" {
		out, _ := exec.Command(nginxBin, "-v").CombinedOutput()
		m.Nginx = strings.TrimSpace(strings.TrimPrefix(string(out), "nginx version: "))
	}
	return m
}

func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// FindNginx returns the nginx binary, or "" when it is not installed.
func FindNginx() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	return ""
}
