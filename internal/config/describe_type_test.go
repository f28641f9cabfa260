package config

import (
	"strings"
	"testing"
)

// Every option must name a type the configuration reference can show.
func TestEveryOptionHasAType(t *testing.T) {
	for _, o := range allOptions() {
		if typ := o.Type(); typ == "" || strings.HasPrefix(typ, "config.") || strings.HasPrefix(typ, "<nil>") {
			t.Errorf("--%s: no documented type (%q); add its value type to Option.Type", o.Flag, typ)
		}
	}
}

// allOptions is every option of every registry command.
func allOptions() []Option {
	var all []Option
	for _, c := range RegistryCommands() {
		all = append(all, c.Options...)
	}
	return all
}
