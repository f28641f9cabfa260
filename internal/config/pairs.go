package config

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// urlPairsValue maps http(s) URLs to values: URL=VALUE items,
// comma-separated, a repeated flag, a YAML list of such items or a YAML
// mapping. Setting it replaces the map. The value may hold '=' and '+'
// (note keys do); the URL ends at the first '='.
type urlPairsValue struct{ p *map[string]string }

func (v urlPairsValue) Set(s string) error {
	if s == "" {
		*v.p = nil
		return nil
	}
	return v.setList([]string{s})
}

func (v urlPairsValue) setList(items []string) error {
	m := map[string]string{}
	for _, s := range items {
		for _, item := range strings.Split(s, ",") {
			if item = strings.TrimSpace(item); item == "" {
				continue
			}
			u, val, ok := strings.Cut(item, "=")
			if !ok {
				return fmt.Errorf("%q is not URL=VALUE", redactURLPair(item))
			}
			if err := addURLPair(m, u, val); err != nil {
				return err
			}
		}
	}
	*v.p = m
	return nil
}

// setMap takes a YAML mapping of URL: VALUE.
func (v urlPairsValue) setMap(items map[string]string) error {
	m := map[string]string{}
	for u, val := range items {
		if err := addURLPair(m, u, val); err != nil {
			return err
		}
	}
	*v.p = m
	return nil
}

func addURLPair(m map[string]string, rawURL, val string) error {
	rawURL, val = strings.TrimSpace(rawURL), strings.TrimSpace(val)
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", redactURLPair(rawURL))
	}
	if val == "" || strings.ContainsAny(val, " \t\r\n") {
		return errors.New("the value after " + u.Redacted() + "= is empty or holds spaces")
	}
	key := strings.TrimRight(rawURL, "/")
	if _, dup := m[key]; dup {
		return errors.New(u.Redacted() + " is given twice")
	}
	m[key] = val
	return nil
}

func (v urlPairsValue) String() string {
	if v.p == nil {
		return ""
	}
	items := make([]string, 0, len(*v.p))
	for u, val := range *v.p {
		items = append(items, u+"="+val)
	}
	sort.Strings(items)
	return strings.Join(items, ",")
}

// redact hides a password in the URLs before an error message shows them.
func (v urlPairsValue) redact(s string) string { return redactURLPair(s) }

func redactURLPair(s string) string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		u, val, ok := strings.Cut(item, "=")
		if p, err := url.Parse(strings.TrimSpace(u)); err == nil {
			u = p.Redacted()
		} else if i := strings.LastIndex(u, "@"); i >= 0 {
			u = "(hidden)" + u[i:]
		}
		if ok {
			u += "=" + val
		}
		out = append(out, u)
	}
	return strings.Join(out, ",")
}
