// Package archtest holds tests of raggate's architecture: the layer order
// of ARCHITECTURE.md (each package imports only packages of lower layers),
// pure packages never reaching the network or API clients, and go-github
// only at the GitHub edge.
package archtest
