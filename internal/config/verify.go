package config

import "time"

// Verify is the configuration of `registry verify`.
type Verify struct {
	Registry string
	Key      string // note verifier key; empty: the one pinned in the state file, else the registry's own (trust on first use)
	State    string // empty: the user's config directory
	Sample   int    // without hashes: how many random documents to check
	All      bool   // without hashes: check every document
	Retries  int    // attempts per request on transient failures
	Settle   time.Duration
	// WitnessKeys and Quorum: the checkpoint must carry cosignatures of at
	// least Quorum of these witnesses (c2sp.org/tlog-cosignature).
	WitnessKeys []string
	Quorum      int
	Proof       string // a c2sp.org/tlog-proof file to check offline against the DOCUMENT argument
}

// Options lists the options of `registry verify`.
func (v *Verify) Options() []Option {
	return []Option{
		{Flag: "registry", Env: "REGISTRY_SERVER", Default: "http://127.0.0.1:8080", Usage: "registry base URL whose transparency log `registry verify` audits", Value: URL(&v.Registry, false, "http", "https")},
		{Flag: "key", Env: "REGISTRY_LOG_VERIFIER_KEY", Default: "", Usage: "the log's note verifier key (origin+hash+key, from the operator); empty means the key pinned in the state file, else the registry's /.well-known/agora on first use", Value: Text(&v.Key)},
		{Flag: "state", Env: "REGISTRY_VERIFY_STATE", Default: "", Usage: "file keeping the verifier key and the last checkpoint `registry verify` saw; empty means one per registry under the user's config directory", Value: Text(&v.State)},
		{Flag: "sample", Env: "REGISTRY_VERIFY_SAMPLE", Default: "16", Usage: "without HASH arguments: how many documents, picked at random from the log, to check against what the registry serves", Value: Count(&v.Sample, 0, 1_000_000)},
		{Flag: "all", Env: "REGISTRY_VERIFY_ALL", Default: "false", Usage: "without HASH arguments: check every document of the log (instead of --sample)", Value: Bool(&v.All)},
		{Flag: "settle", Env: "REGISTRY_VERIFY_SETTLE", Default: "3s", Usage: "how long to wait before re-reading the log when the registry's status of a document is ahead of it (a change not yet integrated)", Value: Duration(&v.Settle)},
		{Flag: "witness-key", Env: "REGISTRY_VERIFY_WITNESS_KEYS", Usage: "a witness's cosignature verifier key (c2sp.org/tlog-cosignature: name+hash+base64), repeatable; the checkpoint must carry valid cosignatures of --quorum of them (too few: exit 2)", Value: List(&v.WitnessKeys)},
		{Flag: "quorum", Env: "REGISTRY_VERIFY_QUORUM", Default: "0", Usage: "how many distinct --witness-key witnesses must have cosigned the checkpoint; 1 or more when --witness-key is given", Value: Count(&v.Quorum, 0, 100)},
		{Flag: "proof", Env: "REGISTRY_VERIFY_PROOF", Usage: "check this c2sp.org/tlog-proof file (from /protocol/HASH.tlog-proof) offline against the document file given as the argument, with --key and the witness policy; nothing is fetched", Value: Text(&v.Proof)},
		{Flag: "retries", Env: "REGISTRY_VERIFY_RETRIES", Default: "4", Usage: "attempts per request when the registry fails transiently (unreachable, timeout, 429, 5xx), with backoff from 250ms", Value: Count(&v.Retries, 1, 10)},
	}
}
