package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// containerImage is the server started when no admin DSN is configured.
const containerImage = "postgres:16-alpine"

// containerStartTimeout bounds pulling and starting the image.
const containerStartTimeout = 3 * time.Minute

var container struct {
	once sync.Once
	dsn  string
	err  error
}

// containerDSN starts one PostgreSQL container per test process. The
// testcontainers reaper removes it when the process exits.
func containerDSN() (string, error) {
	container.once.Do(func() {
		if !dockerReachable() {
			container.err = ErrNoPostgres
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), containerStartTimeout)
		defer cancel()
		ctr, err := tcpostgres.Run(ctx, containerImage,
			tcpostgres.WithDatabase("postgres"),
			tcpostgres.WithUsername("postgres"),
			tcpostgres.WithPassword("postgres"),
			tcpostgres.BasicWaitStrategies(),
		)
		if err != nil {
			container.err = fmt.Errorf("%w (starting a %s container failed: %v)", ErrNoPostgres, containerImage, err)
			return
		}
		container.dsn, container.err = ctr.ConnectionString(ctx, "sslmode=disable")
	})
	return container.dsn, container.err
}

// dockerReachable checks cheaply for a Docker endpoint, so that a machine
// without Docker skips at once instead of waiting on testcontainers' retries.
func dockerReachable() bool {
	if host := os.Getenv("DOCKER_HOST"); host != "" {
		u, err := url.Parse(host)
		if err == nil && u.Scheme == "unix" {
			return socketExists(u.Path)
		}
		return true // tcp:// and friends: let testcontainers try
	}
	candidates := []string{"/var/run/docker.sock"}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		candidates = append(candidates, filepath.Join(dir, "docker.sock"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates,
			filepath.Join(home, ".docker", "run", "docker.sock"),
			filepath.Join(home, ".docker", "desktop", "docker.sock"))
	}
	for _, c := range candidates {
		if socketExists(c) {
			return true
		}
	}
	return false
}

func socketExists(path string) bool {
	fi, err := os.Stat(strings.TrimSpace(path))
	return err == nil && fi.Mode()&os.ModeSocket != 0
}
