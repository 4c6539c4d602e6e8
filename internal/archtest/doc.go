// Package archtest holds tests of raggate's architecture: the dependency
// rule of DESIGN.md (pure packages never reach the network or API clients).
package archtest
