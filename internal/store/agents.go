package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// Limits of the agent directory. The crawler cuts what an agent lists to
// them before it reaches the store; the store refuses anything larger.
const (
	MaxAgentURLBytes         = 2048
	MaxAgentNameRunes        = 200
	MaxAgentDescriptionRunes = 2000
	MaxAgentKinds            = 32
	MaxAgentKindRunes        = 64
	MaxAgentProtocols        = 1000 // supported and, apart, unsupported hashes
	MaxAgentSources          = 8    // sources kept per supported hash
	MaxAgentSourceBytes      = 2048
	MaxAgentErrorRunes       = 500
	MaxAgentsPerProtocol     = 100 // agents one AgentsFor list holds
)

// ErrAgentNotFound is a lookup of an agent that is not registered.
var ErrAgentNotFound = apperr.New(apperr.NotFound, "agent_not_found", "no agent with this id is registered")

// The caps of one registrant (AgentReservation.PerDay and Total).
var (
	ErrAgentDailyCap = apperr.New(apperr.RateLimited, "agent_daily_limit",
		"your address has registered as many new agents as it may in 24 hours; re-registering a known agent still works")
	ErrAgentTotalCap = apperr.New(apperr.RateLimited, "agent_total_limit",
		"agents registered from your address have reached their cap; re-registering a known agent still works")
)

// AgentRegistrationWindow is the rolling window of AgentReservation.PerDay.
const AgentRegistrationWindow = 24 * time.Hour

// AgentReservation is a registration's claim on an agent row, made before
// its first crawl so that the caps hold however long the crawl takes.
type AgentReservation struct {
	URL        string // the agent's origin, as the directory spells it
	Registrant string // the client registering (its address or IPv6 prefix)
	At, Next   time.Time
	// PerDay caps the new agents one registrant adds per rolling
	// AgentRegistrationWindow (removed ones still count); Total caps the
	// agents its registrations hold at once. 0 is no cap.
	PerDay, Total int
}

// CapError is the cap a registrant with day new agents in the window and
// total agents in the directory would pass by adding one, or nil.
func (r AgentReservation) CapError(day, total int) error {
	switch {
	case r.PerDay > 0 && day >= r.PerDay:
		return ErrAgentDailyCap.With(fmt.Sprintf("your address has registered %d new agents in the last 24 hours, the most it may; re-registering a known agent still works", day))
	case r.Total > 0 && total >= r.Total:
		return ErrAgentTotalCap.With(fmt.Sprintf("agents registered from your address number %d, the most it may hold; re-registering a known agent still works", total))
	}
	return nil
}

// CheckCrawl refuses a crawl outside the directory's limits.
func CheckCrawl(c entity.AgentCrawl) error {
	bad := func(what string) error { return ErrInvalid.With("agent crawl: " + what) }
	switch {
	case !fitsRunes(c.Name, MaxAgentNameRunes):
		return bad("name too long or not UTF-8")
	case !fitsRunes(c.Description, MaxAgentDescriptionRunes):
		return bad("description too long or not UTF-8")
	case len(c.Kinds) > MaxAgentKinds:
		return bad("too many kinds")
	case len(c.WellKnownURL) > MaxAgentURLBytes:
		return bad("well-known URL too long")
	case len(c.Supported) > MaxAgentProtocols || len(c.Unsupported) > MaxAgentProtocols:
		return bad("too many hashes")
	}
	for _, k := range c.Kinds {
		if k == "" || !fitsRunes(k, MaxAgentKindRunes) {
			return bad("malformed kind")
		}
	}
	for _, st := range []entity.DialectState{c.Agora, c.A2AState, c.ARDState} {
		if !fitsRunes(st.Error, MaxAgentErrorRunes) || st.Failures < 0 {
			return bad("malformed dialect state")
		}
	}
	if c.A2A != nil {
		if err := checkCard(*c.A2A); err != nil {
			return err
		}
	}
	if c.ARD != nil {
		if err := checkManifest(*c.ARD); err != nil {
			return err
		}
	}
	for _, p := range c.Supported {
		if len(p.Sources) > MaxAgentSources {
			return bad("too many sources")
		}
		for _, s := range p.Sources {
			if len(s) > MaxAgentSourceBytes || !utf8.ValidString(s) {
				return bad("malformed source")
			}
		}
	}
	return nil
}

func fitsRunes(s string, n int) bool { return utf8.ValidString(s) && utf8.RuneCountInString(s) <= n }

// AgentQuery selects a page of agents, in registration order.
type AgentQuery struct {
	Speaks *protocol.Digest // lists it as supported
	Kind   string           // lists this kind (exact)
	Text   string           // in name, description, URL, A2A card or ARD manifest (case-insensitive substring)
	// Dialect keeps agents whose record holds data of one dialect:
	// DialectAgora, DialectA2A or DialectARD ("" any).
	Dialect string
	Limit   int    // 0: DefaultPageSize; capped at MaxPageSize
	Cursor  string // from the previous AgentPage.NextCursor
}

// MaxAgentQueryRunes caps AgentQuery.Text.
const MaxAgentQueryRunes = 200

// Normalize validates q and returns it with defaults applied and the
// cursor decoded.
func (q AgentQuery) Normalize() (AgentQuery, int64, error) {
	q.Text = strings.TrimSpace(q.Text)
	if !fitsRunes(q.Text, MaxAgentQueryRunes) {
		return q, 0, ErrInvalid.With(fmt.Sprintf("a query is at most %d characters of valid UTF-8", MaxAgentQueryRunes))
	}
	if !fitsRunes(q.Kind, MaxAgentKindRunes) {
		return q, 0, ErrInvalid.With("malformed kind")
	}
	switch q.Dialect {
	case "", entity.DialectAgora, entity.DialectA2A, entity.DialectARD:
	default:
		return q, 0, ErrInvalid.With("a dialect is agora, a2a or ard")
	}
	switch {
	case q.Limit <= 0:
		q.Limit = DefaultPageSize
	case q.Limit > MaxPageSize:
		q.Limit = MaxPageSize
	}
	var after int64
	if q.Cursor != "" {
		var err error
		if after, err = decodeAgentCursor(q.Cursor); err != nil {
			return q, 0, err
		}
	}
	return q, after, nil
}

// AgentTextKey is the lower-cased text an AgentQuery.Text matches; the
// engines store it so that both fold case alike (Unicode, in Go).
func AgentTextKey(url string, c entity.AgentCrawl) string {
	return strings.ToLower(c.Name + "\n" + c.Description + "\n" + url + dialectText(c))
}

// LikePattern is a case-folded substring pattern for LIKE … ESCAPE '\'.
func LikePattern(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(text)) + "%"
}

// agentCursorPrefix marks an agent cursor, so a protocol search's cursor
// is refused instead of misread.
const agentCursorPrefix = "a"

// AgentCursor is the cursor that continues after the agent with id.
func AgentCursor(id int64) string { return fmt.Sprintf("%s%d", agentCursorPrefix, id) }

func decodeAgentCursor(c string) (int64, error) {
	var id int64
	rest, ok := strings.CutPrefix(c, agentCursorPrefix)
	if !ok || len(rest) > 19 {
		return 0, ErrInvalidCursor
	}
	if _, err := fmt.Sscanf(rest, "%d", &id); err != nil || id < 0 || fmt.Sprint(id) != rest {
		return 0, ErrInvalidCursor
	}
	return id, nil
}

// AgentPage is one page of agents. NextCursor is "" on the last page.
type AgentPage struct {
	Agents     []entity.Agent
	NextCursor string
}

// ProtocolAgents are the agents that list one hash: as supported
// (Speaking) and as explicitly unsupported (Refusing), each in
// registration order and capped at MaxAgentsPerProtocol, with the full
// counts beside.
type ProtocolAgents struct {
	Speaking, Refusing           []entity.Agent
	SpeakingCount, RefusingCount int
}

// DueAgent is an agent whose crawl is due.
type DueAgent struct {
	ID  int64
	URL string
}

// Agents is the agent-directory half of the store.
type Agents interface {
	// RegisterAgent records a new agent with its first good crawl, or
	// records the crawl on the agent already registered at url
	// (created=false).
	RegisterAgent(ctx context.Context, url string, at time.Time, crawl entity.AgentCrawl, next time.Time) (a entity.Agent, created bool, err error)
	// ReserveAgent returns the agent registered at r.URL (created=false),
	// or adds it, never crawled, within r's caps (ErrAgentDailyCap,
	// ErrAgentTotalCap); the check and the insert are one step, so
	// concurrent registrations from one registrant cannot pass a cap.
	ReserveAgent(ctx context.Context, r AgentReservation) (a entity.Agent, created bool, err error)
	// RecordCrawl replaces an agent's state with a good crawl.
	RecordCrawl(ctx context.Context, id int64, at time.Time, crawl entity.AgentCrawl, next time.Time) error
	// RecordCrawlFailure counts a failed crawl and keeps the last good
	// state; the failure that makes maxFailures removes the agent
	// (removed=true).
	RecordCrawlFailure(ctx context.Context, id int64, at time.Time, reason string, next time.Time, maxFailures int) (removed bool, err error)
	// GetAgent returns one agent with its lists, or ErrAgentNotFound.
	GetAgent(ctx context.Context, id int64) (entity.Agent, error)
	// ListAgents lists agents without their lists (counts only); an agent
	// no crawl has read yet is not listed.
	ListAgents(ctx context.Context, q AgentQuery) (AgentPage, error)
	// AgentByURL returns the listed agent (read by a crawl) registered at
	// url with its lists, or ErrAgentNotFound.
	AgentByURL(ctx context.Context, url string) (entity.Agent, error)
	// CountAgents counts the listed agents.
	CountAgents(ctx context.Context) (int, error)
	// AgentsFor lists who speaks d and who refuses it.
	AgentsFor(ctx context.Context, d protocol.Digest) (ProtocolAgents, error)
	// SpeakerCounts counts, for each of ds, the agents that list it as
	// supported (at most MaxResolve digests).
	SpeakerCounts(ctx context.Context, ds []protocol.Digest) (map[protocol.Digest]int, error)
	// DueAgents lists at most limit agents whose next crawl is at or before
	// now, the most overdue first.
	DueAgents(ctx context.Context, now time.Time, limit int) ([]DueAgent, error)
}

// CheckAgentReason clips a crawl failure to MaxAgentErrorRunes.
func CheckAgentReason(reason string) string {
	reason = strings.ToValidUTF8(reason, "?")
	if utf8.RuneCountInString(reason) > MaxAgentErrorRunes {
		reason = string([]rune(reason)[:MaxAgentErrorRunes])
	}
	return reason
}

// PageAgents cuts a page of limit agents from rows read with limit+1 and
// sets its cursor (the engines' shared keyset step).
func PageAgents(rows []entity.Agent, limit int) AgentPage {
	p := AgentPage{Agents: rows}
	if len(rows) > limit {
		p.Agents = rows[:limit]
		p.NextCursor = AgentCursor(rows[limit-1].ID)
	}
	p.Agents = NonNil(p.Agents)
	return p
}
