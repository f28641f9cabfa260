package agent

import "github.com/agora-registry/registry/agora"

// The agent's tests were written against names the agora package now
// holds; these aliases keep them reading as they did.
type (
	WellKnownMeta = agora.WellKnownMeta
	Answer        = agora.Answer
	Transaction   = agora.Transaction
	Candidate     = agora.Candidate
	Outgoing      = agora.Outgoing
	Reply         = agora.Reply
	WellKnownInfo = agora.WellKnownInfo
)

const (
	StatusSuccess  = agora.StatusSuccess
	StatusFailure  = agora.StatusFailure
	StatusRejected = agora.StatusRejected
)

var (
	DecodeTransaction      = agora.DecodeTransaction
	ParseReply             = agora.ParseReply
	ChooseProtocol         = agora.ChooseProtocol
	SourcesFor             = agora.SourcesFor
	Send                   = agora.Send
	Continue               = agora.Continue
	End                    = agora.End
	FetchWellKnown         = agora.FetchWellKnown
	WireHash               = agora.WireHash
	ParseSpelling          = agora.ParseSpelling
	ErrNoProtocol          = agora.ErrNoProtocol
	ErrConversationExpired = agora.ErrConversationExpired
	ErrTooManyConvs        = agora.ErrTooManyConvs
)

const maxSourcesInRequest = agora.MaxSourcesInRequest
