package neterr

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// closedPort returns an address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := l.Addr().String()
	l.Close()
	return a
}

func post(t *testing.T, c *http.Client, u string) error {
	t.Helper()
	resp, err := c.Post(u, "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("POST %s answered", u)
	}
	return err
}

func TestDescribeRealFailures(t *testing.T) {
	addr := closedPort(t)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer tlsSrv.Close()
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	defer hangup.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Second):
		}
	}))
	defer slow.Close()

	for _, c := range []struct {
		name   string
		err    error
		want   []string
		target error
	}{
		{"refused", post(t, http.DefaultClient, "http://"+addr+"/v1/chat/completions?key=sk-secret"),
			[]string{"POST http://" + addr + "/v1/chat/completions: connection refused by " + addr, "is the server running"}, syscall.ECONNREFUSED},
		{"untrusted certificate", post(t, &http.Client{}, tlsSrv.URL+"/v1"),
			[]string{"POST " + tlsSrv.URL + "/v1: the TLS certificate of " + strings.TrimPrefix(tlsSrv.URL, "https://") + " is not trusted"}, nil},
		{"hang-up", post(t, http.DefaultClient, hangup.URL+"/x"),
			[]string{"closed the connection without a complete answer"}, nil},
		{"time-out", post(t, &http.Client{Timeout: 50 * time.Millisecond}, slow.URL+"/x"),
			[]string{"POST " + slow.URL + "/x: no answer from", "within the time-out"}, nil},
		{"no such host", &net.DNSError{Err: "no such host", Name: "judge.example.invalid", IsNotFound: true},
			[]string{"no such host judge.example.invalid: check the host name in the URL"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := Wrap(c.err)
			for _, s := range c.want {
				if !strings.Contains(w.Error(), s) {
					t.Errorf("%q\nlacks %q", w.Error(), s)
				}
			}
			if strings.Contains(w.Error(), "sk-secret") || strings.Contains(w.Error(), "dial tcp") {
				t.Errorf("%q quotes the query or Go's dial wording", w.Error())
			}
			if !errors.Is(w, c.err) || (c.target != nil && !errors.Is(w, c.target)) {
				t.Error("the original error left the chain")
			}
		})
	}
}

func TestOtherErrorsStayAsTheyAre(t *testing.T) {
	for _, err := range []error{errors.New("HTTP 500: boom"), context.Canceled} {
		if Describe(err) != "" || Wrap(err) != err {
			t.Errorf("%v reworded as %q", err, Describe(err))
		}
	}
}
