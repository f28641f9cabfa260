package storetest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Words the benchmark corpus guarantees, so search benchmarks ask for the
// same selectivity on every engine.
const (
	// CommonWord is in the body of about one document in four.
	CommonWord = "payload"
	// RareWord is in about one document in a thousand.
	RareWord = "xylophone"
	// CommonTag is on about one document in five: every eighth document
	// has it, and so do the weather domain's (19,728 of 100,000).
	CommonTag = "weather"
)

var (
	corpusDomains = []string{"weather", "payments", "booking", "shipping", "translation", "calendar", "inventory",
		"chat", "search", "maps", "health", "finance"}
	corpusActions = []string{"Query", "Submit", "Cancel", "Track", "List", "Negotiate", "Confirm", "Quote", "Schedule", "Audit"}
	corpusObjects = []string{"Orders", "Forecasts", "Reservations", "Parcels", "Invoices", "Events", "Routes", "Records",
		"Rates", "Messages", "Documents", "Slots"}
	corpusTags = []string{"weather", "payments", "booking", "shipping", "translation", "calendar", "inventory", "chat",
		"search", "maps", "health", "finance", "json", "multiround", "experimental", "stable", "v1", "v2", "internal", "public"}
	corpusVocabulary = buildVocabulary()
)

// buildVocabulary makes a few thousand pronounceable pseudo-words from
// syllables, deterministically.
func buildVocabulary() []string {
	syllables := []string{"ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pre", "dan", "gel", "tor", "qua", "zen", "bri", "fal"}
	words := []string{"the", "request", "response", "field", "value", "agent", "protocol", "string", "number", "date",
		"location", "status", "error", "returns", "must", "should", "optional", "required", "list", "object"}
	for _, a := range syllables {
		for _, b := range syllables {
			for _, c := range syllables[:8] {
				words = append(words, a+b+c)
			}
		}
	}
	return words
}

// GenerateDocument returns corpus document i: 1 to 8 KB of Markdown with
// YAML front matter, a varied title, description and tags. It is
// deterministic, so every engine and every run sees the same corpus, and
// distinct for every i.
func GenerateDocument(i int) []byte {
	r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
	domain := corpusDomains[r.IntN(len(corpusDomains))]
	action := corpusActions[r.IntN(len(corpusActions))]
	object := corpusObjects[r.IntN(len(corpusObjects))]
	title := fmt.Sprintf("%s %s %s Protocol %d", strings.ToUpper(domain[:1])+domain[1:], action, object, i)

	tags := []string{domain}
	for range r.IntN(4) {
		t := corpusTags[r.IntN(len(corpusTags))]
		if t != CommonTag && t != tags[0] {
			tags = append(tags, t)
		}
	}
	if i%8 == 0 && domain != CommonTag {
		tags = append(tags, CommonTag)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\n", title)
	fmt.Fprintf(&b, "description: %s %s for %s agents, revision %d.\n", action, strings.ToLower(object), domain, i%97)
	fmt.Fprintf(&b, "multiround: %v\n", i%5 == 0)
	fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(tags, ", "))
	fmt.Fprintf(&b, "version: 1.%d.%d\n---\n\n", i%10, i%7)
	fmt.Fprintf(&b, "# %s\n\n", title)

	target := 1024 + r.IntN(7*1024)
	section := 0
	for b.Len() < target {
		fmt.Fprintf(&b, "## Section %d\n\n", section)
		section++
		for sentence := 0; sentence < 6 && b.Len() < target; sentence++ {
			n := 6 + r.IntN(10)
			for w := range n {
				// A skewed pick, so some words are common and most are rare.
				word := corpusVocabulary[int(float64(len(corpusVocabulary))*r.Float64()*r.Float64()*r.Float64())]
				if w == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				}
				b.WriteString(word)
				b.WriteByte(' ')
			}
			b.WriteString(fmt.Sprintf("(ref %d-%d).\n", i, section))
		}
		b.WriteString("\n")
	}
	if i%4 == 1 {
		fmt.Fprintf(&b, "The %s is sent as JSON.\n", CommonWord)
	}
	if i%1000 == 7 {
		fmt.Fprintf(&b, "A %s note closes this document.\n", RareWord)
	}
	return []byte(b.String())
}
