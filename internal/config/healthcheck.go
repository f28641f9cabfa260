package config

// Healthcheck is the configuration of `registry healthcheck`: only the
// listen address, read exactly as serve reads it, so a bad value of an
// option the probe does not use cannot fail the container's health.
type Healthcheck struct {
	Addr string
}

// Options lists the options of `registry healthcheck`.
func (c *Healthcheck) Options() []Option {
	return []Option{addrOption(&c.Addr)}
}

func addrOption(p *string) Option {
	return Option{Flag: "addr", Env: "REGISTRY_ADDR", Default: "127.0.0.1:8080", Usage: "address to listen on", Value: HostPort(p)}
}
