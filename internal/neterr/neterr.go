// Package neterr words the errors of a network call that never got an
// HTTP answer (refused or reset connections, unknown hosts, untrusted
// certificates, time-outs) for the user who has to fix them: what
// happened, to which host, and what to check. The original error stays
// in the chain for errors.Is and errors.As.
package neterr

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
)

// described is an error with a user's wording of its cause.
type described struct {
	msg string
	err error
}

func (e *described) Error() string { return e.msg }
func (e *described) Unwrap() error { return e.err }

// Wrap returns err reworded when it is a network failure (see Describe),
// else err itself.
func Wrap(err error) error {
	if msg := Describe(err); msg != "" {
		return &described{msg: msg, err: err}
	}
	return err
}

// WrapCause is Wrap worded by Cause: the failure without the request.
func WrapCause(err error) error {
	if msg := Cause(err); msg != "" {
		return &described{msg: msg, err: err}
	}
	return err
}

// Describe words err when it is a network failure of an HTTP call: "POST
// http://host/path: connection refused by host:port: nothing listens
// there (is the server running, and are the URL's host and port right?)".
// The URL is shown without its query and user info (they can hold a
// secret). "" when err is not such a failure.
func Describe(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return cause(err, "")
	}
	if u, perr := url.Parse(ue.URL); perr == nil {
		u.RawQuery, u.User, u.Fragment = "", nil, ""
		if c := cause(ue.Err, u.Host); c != "" {
			return fmt.Sprintf("%s %s: %s", upper(ue.Op), u.String(), c)
		}
	}
	return ""
}

// Cause is Describe without the request: the failure alone, for a
// message that names the call otherwise. "" when err is not a network
// failure.
func Cause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		host := ""
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
		return cause(ue.Err, host)
	}
	return cause(err, "")
}

// cause words the network failure err, on host ("" unknown); "" when err
// is none.
func cause(err error, host string) string {
	var dns *net.DNSError
	var op *net.OpError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return fmt.Sprintf("no such host %s: check the host name in the URL", dns.Name)
		}
		return fmt.Sprintf("cannot resolve host %s (%s): check the host name and the network's DNS", dns.Name, dns.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("connection refused by %s: nothing listens there (is the server running, and are the URL's host and port right?)", addr(err, host))
	case errors.Is(err, syscall.ECONNRESET):
		return fmt.Sprintf("connection reset by %s (a proxy or the server dropped it)", addr(err, host))
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return fmt.Sprintf("no route to %s: check the network and the URL", addr(err, host))
	case errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &verify):
		return fmt.Sprintf("the TLS certificate of %s is not trusted (%v): check the URL, or add the certificate authority to the system's trusted ones", orHost(host), err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("%s closed the connection without a complete answer", orHost(host))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err):
		if errors.As(err, &op) && op.Op == "dial" {
			return fmt.Sprintf("no connection to %s within the time-out: check the URL and the network (a firewall?)", addr(err, host))
		}
		return fmt.Sprintf("no answer from %s within the time-out", orHost(host))
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Sprintf("cannot connect to %s: %v", addr(err, host), op.Err)
	}
	return ""
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// addr is the address err failed on: the dialled one, else host.
func addr(err error, host string) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String()
	}
	return orHost(host)
}

func orHost(host string) string {
	if host == "" {
		return "the server"
	}
	return host
}

func upper(op string) string {
	b := []byte(op)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
