// Package demo runs the paper demo's clients against the registry:
// its protocol DB requests (agents/user/protocol_management.py:
// submit_protocol_to_public_db, decide_protocol, negotiate_protocol; the
// server agent's /registerNegotiatedProtocol through
// download_and_verify_protocol), written in Go with the exact shapes the
// demo's Python sends and reads, over a real socket on both store engines.
package demo
