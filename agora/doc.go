// Package agora builds Agora agents in Go: agents that agree on a protocol
// document, identified by the SHA-1 of its bytes, and then talk through
// routines that answer it.
//
// A receiver is a Handler: register a Routine per protocol hash (Handle,
// HandleDocument) and serve it; it answers transactions, multi-round
// conversations with byte budgets and expiry, and the well-known documents
// (/.wellknown, /wellknown, /.well-known/agora). Documents are obtained by
// a Resolver (disk cache, the sender's sources through an SSRF-guarded
// fetcher, data: URIs, registries) and always verified against their hash
// with SHA-1 collision detection; a registry whose transparency-log key
// is pinned (ResolverOptions.LogKeys) must also prove, with LogVerifier,
// that its log includes the document.
//
// A sender reads the target's well-known documents (FetchWellKnown),
// chooses a protocol by the spec's criteria (ChooseProtocol), finds
// sources for it (SourcesFor: a registry's, else a data: URI) and sends
// (Send, Continue, End). Registry is a client of an Agora registry:
// publish, get, search, resolve, task match (MatchCandidates) and its
// agent directory; an Announcer keeps a directory told what a Handler
// speaks (Handler.Changed).
//
// Negotiation follows the Python SDK: a Handler with an LLM answers
// "negotiation" conversations and adopts the protocol agreed there; a
// Negotiator agrees on one with a target, and JudgeCandidates is the
// spec's fourth criterion (an LLM judges candidates first).
//
// Transactions and answers are read in every dialect in use (the seed
// spec, spec v0.2, the Python SDK 0.2.0) and written in the one they all
// read. Digest reads both spellings of a hash (hex and Base64).
package agora
