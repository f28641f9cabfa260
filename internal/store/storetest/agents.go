package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// digestN is a made-up digest (agents may list hashes the store lacks).
func digestN(n int) protocol.Digest {
	var d protocol.Digest
	d[0], d[19] = byte(n>>8), byte(n)
	return d
}

func crawlOf(name string, kinds []string, supported []int, unsupported []int) entity.AgentCrawl {
	c := entity.AgentCrawl{Name: name, Description: "the " + name + " agent", Kinds: kinds, WellKnownURL: "http://x/.wellknown"}
	for _, n := range supported {
		c.Supported = append(c.Supported, entity.AgentProtocol{Digest: digestN(n), Sources: []string{fmt.Sprintf("http://src/%d", n)}})
	}
	for _, n := range unsupported {
		c.Unsupported = append(c.Unsupported, digestN(n))
	}
	return c
}

func testAgents(t *testing.T, open Opener) {
	s := open(t)
	c := ctx(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)

	a, created, err := s.RegisterAgent(c, "http://weather.test/", now, crawlOf("Weather", []string{"weather"}, []int{1, 2}, []int{3}), later)
	noErr(t, "RegisterAgent", err)
	if !created || a.ID == 0 || a.Name != "Weather" || a.URL != "http://weather.test/" {
		t.Fatalf("RegisterAgent = %+v, created %v", a, created)
	}
	if len(a.Supported) != 2 || len(a.Unsupported) != 1 || a.Supported[0].Sources[0] != "http://src/1" || a.Unsupported[0] != digestN(3) {
		t.Fatalf("lists after register: %+v / %+v", a.Supported, a.Unsupported)
	}
	if a.LastSeen == nil || !sameTime(*a.LastSeen, now) || !sameTime(a.NextCrawl, later) || a.Failures != 0 {
		t.Fatalf("crawl state after register: %+v", a)
	}
	again, created, err := s.RegisterAgent(c, "http://weather.test/", now, crawlOf("Weather 2", nil, []int{1}, nil), later)
	noErr(t, "RegisterAgent again", err)
	if created || again.ID != a.ID || again.Name != "Weather 2" || again.SupportedCount != 1 || len(again.Unsupported) != 0 {
		t.Fatalf("registering a URL again: %+v, created %v", again, created)
	}
	noErr(t, "RecordCrawl", s.RecordCrawl(c, a.ID, now, crawlOf("Weather", []string{"weather", "forecast"}, []int{1, 2}, []int{3}), later))

	b, _, err := s.RegisterAgent(c, "http://chat.test/", now, crawlOf("Chat Ünïcode", []string{"chat"}, []int{2}, []int{1}), now)
	noErr(t, "RegisterAgent b", err)
	d, _, err := s.RegisterAgent(c, "http://quiet.test/", now, crawlOf("Quiet", nil, nil, nil), later)
	noErr(t, "RegisterAgent d", err)

	list := func(q store.AgentQuery) []int64 {
		t.Helper()
		var ids []int64
		for pages := 0; ; pages++ {
			p, err := s.ListAgents(c, q)
			noErr(t, "ListAgents", err)
			for _, ag := range p.Agents {
				if ag.Supported != nil {
					t.Fatal("ListAgents carries the lists")
				}
				ids = append(ids, ag.ID)
			}
			if p.NextCursor == "" || pages > 10 {
				return ids
			}
			q.Cursor = p.NextCursor
		}
	}
	eq := func(what string, got []int64, want ...int64) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
	}
	eq("all, pages of 1", list(store.AgentQuery{Limit: 1}), a.ID, b.ID, d.ID)
	two := digestN(2)
	eq("speaks 2", list(store.AgentQuery{Speaks: &two}), a.ID, b.ID)
	one := digestN(1)
	eq("speaks 1 (b refuses it)", list(store.AgentQuery{Speaks: &one}), a.ID)
	eq("kind forecast", list(store.AgentQuery{Kind: "forecast"}), a.ID)
	eq("text, case-folded beyond ASCII", list(store.AgentQuery{Text: "ÜNÏ"}), b.ID)
	eq("text in URL", list(store.AgentQuery{Text: "quiet.TEST"}), d.ID)
	eq("text with LIKE wildcards is literal", list(store.AgentQuery{Text: "%"}))
	eq("speaks 2, kind chat", list(store.AgentQuery{Speaks: &two, Kind: "chat"}), b.ID)
	if _, err := s.ListAgents(c, store.AgentQuery{Cursor: "bogus"}); !errors.Is(err, store.ErrInvalidCursor) {
		t.Fatalf("bad cursor: %v", err)
	}

	byURL, err := s.AgentByURL(c, "http://chat.test/")
	noErr(t, "AgentByURL", err)
	if byURL.ID != b.ID || len(byURL.Supported) != 1 || len(byURL.Unsupported) != 1 {
		t.Fatalf("AgentByURL = %+v", byURL)
	}
	if _, err := s.AgentByURL(c, "http://chat.test"); !errors.Is(err, store.ErrAgentNotFound) {
		t.Fatalf("AgentByURL matches another spelling: %v", err)
	}
	if n, err := s.CountAgents(c); err != nil || n != 3 {
		t.Fatalf("CountAgents = %d, %v; want 3", n, err)
	}

	pa, err := s.AgentsFor(c, one)
	noErr(t, "AgentsFor", err)
	if pa.SpeakingCount != 1 || pa.RefusingCount != 1 || pa.Speaking[0].ID != a.ID || pa.Refusing[0].ID != b.ID {
		t.Fatalf("AgentsFor(1) = %+v", pa)
	}
	counts, err := s.SpeakerCounts(c, []protocol.Digest{one, two, digestN(3), digestN(99)})
	noErr(t, "SpeakerCounts", err)
	if counts[one] != 1 || counts[two] != 2 || counts[digestN(3)] != 0 || len(counts) != 2 {
		t.Fatalf("SpeakerCounts = %v", counts)
	}

	due, err := s.DueAgents(c, now, 10)
	noErr(t, "DueAgents", err)
	if len(due) != 1 || due[0].ID != b.ID || due[0].URL != "http://chat.test/" {
		t.Fatalf("DueAgents(now) = %+v, want only b", due)
	}

	// Failures keep the last good state; the third removes the agent.
	for i := 1; i <= 3; i++ {
		removed, err := s.RecordCrawlFailure(c, b.ID, later, "connection refused", later.Add(time.Hour), 3)
		noErr(t, "RecordCrawlFailure", err)
		if removed != (i == 3) {
			t.Fatalf("failure %d: removed = %v", i, removed)
		}
		if i == 2 {
			got, err := s.GetAgent(c, b.ID)
			noErr(t, "GetAgent after failures", err)
			if got.Failures != 2 || got.LastError != "connection refused" || got.Name != "Chat Ünïcode" ||
				len(got.Supported) != 1 || !sameTime(*got.LastSeen, now) || !sameTime(*got.LastCrawled, later) {
				t.Fatalf("after two failures: %+v", got)
			}
		}
	}
	if _, err := s.GetAgent(c, b.ID); !errors.Is(err, store.ErrAgentNotFound) {
		t.Fatalf("GetAgent of a removed agent: %v", err)
	}
	pa, err = s.AgentsFor(c, one)
	noErr(t, "AgentsFor after removal", err)
	if pa.RefusingCount != 0 || len(pa.Refusing) != 0 {
		t.Fatalf("a removed agent's lists stay: %+v", pa)
	}
	// A good crawl clears the failures.
	_, err = s.RecordCrawlFailure(c, a.ID, later, "timeout", later, 3)
	noErr(t, "RecordCrawlFailure a", err)
	noErr(t, "RecordCrawl a", s.RecordCrawl(c, a.ID, later, crawlOf("Weather", nil, []int{1}, nil), later))
	got, err := s.GetAgent(c, a.ID)
	noErr(t, "GetAgent a", err)
	if got.Failures != 0 || got.LastError != "" || !sameTime(*got.LastSeen, later) || len(got.Supported) != 1 {
		t.Fatalf("a good crawl after a failure: %+v", got)
	}
	if err := s.RecordCrawl(c, 999999, now, entity.AgentCrawl{}, now); !errors.Is(err, store.ErrAgentNotFound) {
		t.Fatalf("RecordCrawl of an unknown agent: %v", err)
	}
	if _, err := s.RecordCrawlFailure(c, 999999, now, "x", now, 3); !errors.Is(err, store.ErrAgentNotFound) {
		t.Fatalf("RecordCrawlFailure of an unknown agent: %v", err)
	}
	tooMany := entity.AgentCrawl{Supported: make([]entity.AgentProtocol, store.MaxAgentProtocols+1)}
	if _, _, err := s.RegisterAgent(c, "http://big.test/", now, tooMany, now); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a crawl over the limits: %v", err)
	}
}

// testAgentReservations: a registration claims its agent before the first
// crawl, within its registrant's caps; an unread agent is not listed.
func testAgentReservations(t *testing.T, open Opener) {
	s := open(t)
	c := ctx(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	reserve := func(url, who string, at time.Time) (entity.Agent, bool, error) {
		return s.ReserveAgent(c, store.AgentReservation{URL: url, Registrant: who, At: at, Next: at.Add(time.Hour), PerDay: 2, Total: 3})
	}
	a, created, err := reserve("http://r1.test", "192.0.2.1", now)
	noErr(t, "ReserveAgent", err)
	if !created || a.LastCrawled != nil || a.LastSeen != nil || !sameTime(a.NextCrawl, now.Add(time.Hour)) {
		t.Fatalf("a reserved agent: %+v, created %v", a, created)
	}
	if p, err := s.ListAgents(c, store.AgentQuery{}); err != nil || len(p.Agents) != 0 {
		t.Fatalf("an agent no crawl has read is listed: %+v, %v", p.Agents, err)
	}
	if _, err := s.AgentByURL(c, "http://r1.test"); !errors.Is(err, store.ErrAgentNotFound) {
		t.Fatalf("AgentByURL finds an agent no crawl has read: %v", err)
	}
	if n, err := s.CountAgents(c); err != nil || n != 0 {
		t.Fatalf("CountAgents counts an agent no crawl has read: %d, %v", n, err)
	}
	again, created, err := reserve("http://r1.test", "192.0.2.1", now)
	noErr(t, "ReserveAgent again", err)
	if created || again.ID != a.ID {
		t.Fatalf("reserving a known agent: %+v, created %v", again, created)
	}
	_, _, err = reserve("http://r2.test", "192.0.2.1", now)
	noErr(t, "ReserveAgent r2", err)
	if _, _, err := reserve("http://r3.test", "192.0.2.1", now); !errors.Is(err, store.ErrAgentDailyCap) {
		t.Fatalf("a third new agent in a day (cap 2): %v", err)
	}
	if _, created, err := reserve("http://r1.test", "192.0.2.1", now); err != nil || created {
		t.Fatalf("a known agent at the cap: %v, created %v", err, created)
	}
	if _, _, err := reserve("http://other.test", "192.0.2.2", now); err != nil {
		t.Fatalf("another registrant is held by the first one's cap: %v", err)
	}
	tomorrow := now.Add(store.AgentRegistrationWindow + time.Minute)
	r3, _, err := reserve("http://r3.test", "192.0.2.1", tomorrow)
	noErr(t, "ReserveAgent a day later", err)
	if _, _, err := reserve("http://r4.test", "192.0.2.1", tomorrow); !errors.Is(err, store.ErrAgentTotalCap) {
		t.Fatalf("a fourth agent held (cap 3): %v", err)
	}
	// A removed agent frees its place in the total, not in the day.
	removed, err := s.RecordCrawlFailure(c, r3.ID, tomorrow, "gone", tomorrow, 1)
	noErr(t, "RecordCrawlFailure", err)
	if !removed {
		t.Fatal("maxFailures 1 kept the agent")
	}
	_, _, err = reserve("http://r4.test", "192.0.2.1", tomorrow)
	noErr(t, "ReserveAgent after a removal", err)
	if _, _, err := reserve("http://r5.test", "192.0.2.1", tomorrow); !errors.Is(err, store.ErrAgentDailyCap) {
		t.Fatalf("a removed agent no longer counts in its day: %v", err)
	}

	noErr(t, "RecordCrawl", s.RecordCrawl(c, a.ID, now, crawlOf("R1", nil, []int{7}, nil), now.Add(time.Hour)))
	p, err := s.ListAgents(c, store.AgentQuery{})
	noErr(t, "ListAgents", err)
	if len(p.Agents) != 1 || p.Agents[0].ID != a.ID {
		t.Fatalf("after its first crawl, the list is %+v", p.Agents)
	}
	counts, err := s.SpeakerCounts(c, []protocol.Digest{digestN(7)})
	noErr(t, "SpeakerCounts", err)
	if counts[digestN(7)] != 1 {
		t.Fatalf("SpeakerCounts = %v", counts)
	}
}

// testAgentCapsConcurrent: registrations racing from one registrant add
// no more agents than its cap.
func testAgentCapsConcurrent(t *testing.T, open Opener) {
	s := open(t)
	c := ctx(t)
	now := time.Now()
	const racers, total = 12, 3
	var (
		wg      sync.WaitGroup
		created atomic.Int32
		errs    = make(chan error, racers)
	)
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := s.ReserveAgent(c, store.AgentReservation{URL: fmt.Sprintf("http://race%d.test", i), Registrant: "198.51.100.7",
				At: now, Next: now, PerDay: 100, Total: total})
			switch {
			case ok:
				created.Add(1)
			case !errors.Is(err, store.ErrAgentTotalCap):
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a racing reservation: %v", err)
	}
	if n := created.Load(); n != total {
		t.Fatalf("%d racing reservations added %d agents, want the cap %d", racers, n, total)
	}
}

// testAgentDialects: an agent record keeps its A2A card and ARD manifest
// whole, with each dialect's read state; list views show which dialects
// it speaks, the dialect filter and text search reach card and manifest.
func testAgentDialects(t *testing.T, open Opener) {
	s := open(t)
	c := ctx(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	card := &entity.AgentCard{
		URL: "https://a2a.test/.well-known/agent-card.json", Name: "Route Planner", Description: "plans routes", Version: "1.2.0",
		Skills: []entity.A2ASkill{
			{ID: "route", Name: "Traffic-Aware Routing", Description: "routes", Tags: []string{"maps", "traffic"}, Examples: []string{"from A to B"}},
			{ID: "bare", Name: "Bare", Tags: []string{}, Examples: []string{}},
		},
		Interfaces:      []entity.A2AInterface{{URL: "https://a2a.test/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}},
		SkillCount:      5,
		Signature:       entity.SignatureInvalid,
		SignatureReason: "no signature verified",
	}
	manifest := &entity.AgentManifest{URL: "https://a2a.test/.well-known/ai-catalog.json", Host: "Acme", EntryCount: 3, Entries: []entity.ARDEntry{
		{Identifier: "urn:air:a2a.test:agent:x", DisplayName: "Weather Node Ωmega", Type: "application/mcp-server-card+json",
			URL: "https://a2a.test/x.json", Tags: []string{"weather"}, Capabilities: []string{"Forecast"}},
		{Identifier: "urn:air:a2a.test:agent:y", DisplayName: "Inline", Type: "application/a2a-agent-card+json", Inline: true, Tags: []string{}, Capabilities: []string{}},
	}}
	crawl := entity.AgentCrawl{Kinds: []string{}, A2A: card, ARD: manifest,
		Agora: entity.DialectState{Error: "the server answered 404 Not Found", Failures: 2}}
	a, _, err := s.RegisterAgent(c, "https://a2a.test", now, crawl, now.Add(time.Hour))
	noErr(t, "RegisterAgent of an A2A agent", err)
	if !reflect.DeepEqual(a.A2A, card) || !reflect.DeepEqual(a.ARD, manifest) {
		t.Fatalf("card or manifest changed in the store:\n%+v\n%+v", a.A2A, a.ARD)
	}
	if a.Agora != crawl.Agora || a.A2AState != (entity.DialectState{}) || !reflect.DeepEqual(a.Dialects(), []string{"a2a", "ard"}) {
		t.Fatalf("dialect states: %+v %+v %v", a.Agora, a.A2AState, a.Dialects())
	}
	other, _, err := s.RegisterAgent(c, "http://agora.test", now, crawlOf("Agora Only", nil, []int{1}, nil), now.Add(time.Hour))
	noErr(t, "RegisterAgent of an Agora agent", err)
	if other.A2A != nil || other.ARD != nil || other.ARDEntryCount != -1 || !reflect.DeepEqual(other.Dialects(), []string{"agora"}) {
		t.Fatalf("an Agora-only agent: %+v", other)
	}
	list := func(q store.AgentQuery) []int64 {
		t.Helper()
		p, err := s.ListAgents(c, q)
		noErr(t, "ListAgents", err)
		var ids []int64
		for _, x := range p.Agents {
			ids = append(ids, x.ID)
			if x.ID == a.ID && (x.CardSignature != entity.SignatureInvalid || x.CardSkillCount != 5 || x.ARDEntryCount != 3 || x.A2A != nil) {
				t.Fatalf("list view of the A2A agent: %+v", x)
			}
		}
		return ids
	}
	for _, tc := range []struct {
		q    store.AgentQuery
		want []int64
	}{
		{store.AgentQuery{Dialect: entity.DialectA2A}, []int64{a.ID}},
		{store.AgentQuery{Dialect: entity.DialectARD}, []int64{a.ID}},
		{store.AgentQuery{Dialect: entity.DialectAgora}, []int64{other.ID}},
		{store.AgentQuery{Text: "traffic-aware"}, []int64{a.ID}}, // a skill's name
		{store.AgentQuery{Text: "MAPS"}, []int64{a.ID}},          // a skill's tag
		{store.AgentQuery{Text: "ωMEGA"}, []int64{a.ID}},         // an ARD entry's name
		{store.AgentQuery{Text: "route planner"}, []int64{a.ID}}, // the card's name
	} {
		if got := list(tc.q); !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("%+v: got %v, want %v", tc.q, got, tc.want)
		}
	}
	if _, err := s.ListAgents(c, store.AgentQuery{Dialect: "mcp"}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an unknown dialect: %v", err)
	}
	// A crawl without a card or manifest clears them.
	noErr(t, "RecordCrawl", s.RecordCrawl(c, a.ID, now, crawlOf("Now Agora", nil, []int{2}, nil), now.Add(time.Hour)))
	got, err := s.GetAgent(c, a.ID)
	noErr(t, "GetAgent", err)
	if got.A2A != nil || got.ARD != nil || got.CardSignature != "" || got.ARDEntryCount != -1 || list(store.AgentQuery{Dialect: entity.DialectA2A}) != nil {
		t.Fatalf("a crawl without a card kept it: %+v", got)
	}
	// The limits hold in the store too.
	for name, bad := range map[string]entity.AgentCrawl{
		"skills":    {A2A: &entity.AgentCard{Signature: entity.SignatureUnsigned, Skills: make([]entity.A2ASkill, store.MaxA2ASkills+1)}},
		"signature": {A2A: &entity.AgentCard{Signature: "trusted"}},
		"entries":   {ARD: &entity.AgentManifest{Entries: make([]entity.ARDEntry, store.MaxARDEntries+1)}},
		"tags":      {ARD: &entity.AgentManifest{Entries: []entity.ARDEntry{{Tags: make([]string, store.MaxARDEntryTags+1)}}}},
	} {
		if err := s.RecordCrawl(c, a.ID, now, bad, now); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("%s over the limits: %v", name, err)
		}
	}
}
