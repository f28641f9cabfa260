package harness

import (
	"fmt"
	"os"
	"path/filepath"
)

// nginxConfig serves DIR/<hex>.md at /protocol/<hex> with the registry's
// headers, answering If-None-Match with the same hex ETag, so the nginx
// column measures the same exchange as the registry's.
const nginxConfig = `daemon off;
worker_processes auto;
pid %[1]s/nginx.pid;
error_log %[1]s/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 1000000;
  keepalive_timeout 65;
  etag off;
  client_body_temp_path %[1]s/tmp-body;
  proxy_temp_path %[1]s/tmp-proxy;
  fastcgi_temp_path %[1]s/tmp-fastcgi;
  uwsgi_temp_path %[1]s/tmp-uwsgi;
  scgi_temp_path %[1]s/tmp-scgi;
  server {
    listen %[2]s;
    root %[3]s;
    location ~ "^/protocol/(?<hex>[0-9a-f]{40})$" {
      default_type "text/plain; charset=utf-8";
      add_header ETag "\"$hex\"" always;
      add_header Cache-Control "public, max-age=31536000, immutable" always;
      add_header X-Content-Type-Options nosniff always;
      if ($http_if_none_match = "\"$hex\"") { return 304; }
      try_files /$hex.md =404;
    }
  }
}
`

// StartNginx writes a configuration under workDir and starts nginx on addr.
func StartNginx(bin, workDir, addr, docsDir string) (*Process, error) {
	dir := filepath.Join(workDir, "nginx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Started as root, nginx's workers run as an unprivileged user; a 0700
	// scratch directory (os.MkdirTemp's mode) makes every document a 403.
	if err := os.Chmod(workDir, 0o755); err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, nginxConfig, dir, addr, docsDir), 0o644); err != nil {
		return nil, err
	}
	return StartProcess("nginx", dir, nil, bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "nginx-error.log"))
}
