package protocol

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// simpleSeeds are blocks (front matter without its '---' lines) of the
// shapes the simple reader takes, and of shapes close to them that it must
// leave to the YAML parser.
var simpleSeeds = []string{
	"name: Weather Protocol 12\ndescription: Query forecast for weather agents, revision 3.\nmultiround: false\ntags: [weather, forecast, payload]\nversion: 1.2.3\n",
	"name: T\ntitle: U\ndescription: d\nmultiround: yes\ntags: a, b\nversion: 1\nsupersedes: qZk+NkcGgWq6PiVxeFDCbJzQ2J0=\nauthors: [x, y z]\nlicense: MIT\n",
	"", "\n\n", "name:\n", "name:", "name: ~\n", "name: null\ndescription: Null\n", "tags: []\n", "tags: [ ]\n",
	"tags: [a,b]\n", "tags: [ a , b ]   \n", "tags: [1, 2.5, true, ~, null]\n", "multiround: on\n", "multiround: 1\n",
	"name: C#\n", "name: a #c\n", "name: http://x.org/a?b=c\n", "name: a: b\n", "name: a:\n", "name: a:b\n",
	"name: é ü 日本\n", "name: a\u2028b\n", "name: a\u0085b\n", "name: \ufeffa\n", "name: a\x7fb\n", "name: a\xffb\n",
	"name: <<\n", "name: .inf\n", "name: 0x1F\n", "name: 2001-12-14\n", "name: -1\n", "name: ---\n", "name: ...\n",
	"tags: [a, b,]\n", "tags: [a,, b]\n", "tags: [a, [b]]\n", "tags: [a, {b: c}]\n", "tags: [a:b]\n", "tags: [a?b]\n",
	"tags: [a\n", "tags: [a] b\n", "tags: [a] #c\n", "name: x\nname: y\n", "x: 1\nx: 2\n", "Name: x\n", "name : x\n",
	"name:x\n", "name:\tx\n", "name: x\r\n", " name: x\n", "- a\n", "# comment\nname: x\n", "name: 'x'\n", "name: \"x\"\n",
	"name: &a x\ntitle: *a\n", "name: !!str 1\n", "name: |\n  x\n", "name: >\n  x\n", "name: x\n  y\n", "name: x\ny\n",
	"true: x\nnull: y\nyes: z\n", "_x: 1\n", "x-y_z9: 1\n", "name: [a, b]\n", "description: a ] b [ c } {\n",
	"%YAML 1.2\n", "...\n", "---\n", "<<: {name: x}\n", "name: `x`\n", "name: @x\n", "name: a\tb\n",
}

// FuzzSimpleFrontMatter holds the simple reader to the YAML parser: what
// it accepts, the parser accepts too, with the same nodes.
func FuzzSimpleFrontMatter(f *testing.F) {
	for _, s := range simpleSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, block []byte) {
		checkSimpleMatchesYAML(t, block)
		// Random bytes rarely make a "key: value" line: also try them as a
		// value and as the inside of a list, where the subtle rules are.
		value, _, _ := strings.Cut(string(block), "\n")
		checkSimpleMatchesYAML(t, []byte("name: "+value+"\n"))
		checkSimpleMatchesYAML(t, []byte("tags: ["+value+"]\ndescription: x\n"))
	})
}

func TestSimpleFrontMatterMatchesYAML(t *testing.T) {
	for _, s := range simpleSeeds {
		checkSimpleMatchesYAML(t, []byte(s))
	}
}

func checkSimpleMatchesYAML(t *testing.T, block []byte) {
	t.Helper()
	got, ok := readSimpleFrontMatter(block)
	if !ok {
		if !reflect.DeepEqual(got, frontMatter{}) {
			t.Fatalf("readSimpleFrontMatter(%q) declined but returned nodes", block)
		}
		return
	}
	var want frontMatter
	if err := yaml.Unmarshal(block, &want); err != nil {
		t.Fatalf("readSimpleFrontMatter(%q) accepted what YAML refuses: %v", block, err)
	}
	for _, f := range []struct {
		name      string
		got, want *yaml.Node
	}{
		{"name", &got.Name, &want.Name}, {"title", &got.Title, &want.Title},
		{"description", &got.Description, &want.Description}, {"multiround", &got.Multiround, &want.Multiround},
		{"tags", &got.Tags, &want.Tags}, {"version", &got.Version, &want.Version},
		{"supersedes", &got.Supersedes, &want.Supersedes}, {"authors", &got.Authors, &want.Authors},
		{"license", &got.License, &want.License},
	} {
		if g, w := nodeShape(f.got), nodeShape(f.want); g != w {
			t.Fatalf("readSimpleFrontMatter(%q): %s is %s, YAML says %s", block, f.name, g, w)
		}
	}
}

// nodeShape is what readFrontMatter reads of a node (all but its position
// and comments), as comparable text.
func nodeShape(n *yaml.Node) string {
	if n.IsZero() {
		return "absent"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{kind %d style %d tag %q value %q anchor %q alias %t", n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Alias != nil)
	for _, c := range n.Content {
		b.WriteString(" " + nodeShape(c))
	}
	b.WriteString("}")
	return b.String()
}

// The shapes real documents use, the benchmark corpus's among them, must
// take the simple path, or the saving silently disappears; the near misses
// must not.
func TestSimpleFrontMatterShapes(t *testing.T) {
	for _, s := range []string{
		simpleSeeds[0], simpleSeeds[1],
		"name: Météo\ndescription: Prévisions, par ville et par date (UTC).\ntags: [météo]\n",
		"name: Weather\n\ndescription: C# and http://example.org/x\n",
	} {
		if _, ok := readSimpleFrontMatter([]byte(s)); !ok {
			t.Errorf("readSimpleFrontMatter(%q) declined a common shape", s)
		}
	}
	for _, s := range []string{
		"description: Forecasts: hourly\n", "name: x # comment\n", "name: x\nname: y\n", "name: 'x'\n",
		"tags:\n- a\n", "name: x\r\n", "tags: [a, b,]\n", "name: &a x\n",
	} {
		if _, ok := readSimpleFrontMatter([]byte(s)); ok {
			t.Errorf("readSimpleFrontMatter(%q) took a shape it must leave to the YAML parser", s)
		}
	}
}
