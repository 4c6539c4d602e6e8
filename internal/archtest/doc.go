// Package archtest holds tests of raggate's architecture: the dependency
// rule of the README's architecture (pure packages never reach the network or API clients).
package archtest
