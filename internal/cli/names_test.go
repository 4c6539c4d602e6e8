package cli

// The metadata columns a target call adds to its sample (see package app).
const (
	colLatency = "target_latency_ms"
	colTokens  = "target_tokens"
)
