package agora

import (
	"encoding/json"
	"net/http"
)

// Answer statuses, as the seed spec names them.
const (
	StatusSuccess  = "success"
	StatusFailure  = "failure"
	StatusRejected = "rejected"
)

// Answer is the agent's reply. Body is always present (the SDK's sender
// raises on a missing body); Error and Code explain failure and rejected.
// ConversationExpires (Unix seconds, spec v0.2) goes with ConversationID.
type Answer struct {
	Status              string `json:"status"`
	Body                string `json:"body"`
	Error               string `json:"error,omitempty"`
	Code                string `json:"code,omitempty"`
	ConversationID      string `json:"conversationId,omitempty"`
	ConversationExpires int64  `json:"conversationExpires,omitempty"`
}

func success(body string) Answer { return Answer{Status: StatusSuccess, Body: body} }

func failure(err error) Answer { return withError(StatusFailure, err) }

func rejected(err error) Answer { return withError(StatusRejected, err) }

func withError(status string, err error) Answer {
	a := Answer{Status: status}
	if e := asError(err); e != nil {
		a.Error, a.Code = e.Message, e.Code
	} else {
		a.Error, a.Code = err.Error(), "internal"
	}
	// The SDK's transporter keeps only status and body, so the human text
	// goes in body too; spec v0.2 readers find it in error.
	a.Body = a.Error
	return a
}

// writeAnswer always answers HTTP 200: Agora carries the outcome in status.
func writeAnswer(w http.ResponseWriter, a Answer) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(a)
}
