package ghcomment_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/ghcomment"
	"github.com/raggate/raggate/internal/ghtest"
)

const repoName = "octo/rag"

// sleeper records the waits of the retry transport without sleeping.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func (s *sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func newClient(t *testing.T, s *ghtest.Server, opts ...ghapi.Option) (*github.Client, *sleeper) {
	t.Helper()
	sl := &sleeper{}
	opts = append([]ghapi.Option{ghapi.WithSleep(sl.sleep)}, opts...)
	c, err := ghapi.NewClient("t0ken", s.URL, s.HTTPClient(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, sl
}

func newServer(t *testing.T) *ghtest.Server {
	// Enterprise prefix: NewClient treats every non-github.com URL as GHES.
	return ghtest.NewServer(t, ghtest.Enterprise(), ghtest.WithToken("t0ken"))
}

func TestUpsertCreatesThenUpdates(t *testing.T) {
	s := newServer(t)
	client, _ := newClient(t, s)
	ctx := context.Background()
	head1 := s.Commit(repoName, "feature", "one")
	head2 := s.Commit(repoName, "feature", "two")

	steps := []struct {
		body, head string
		want       ghcomment.Action
	}{
		{"first report", head1, ghcomment.Created},
		{"second report", head2, ghcomment.Updated},
		{"second report", head2, ghcomment.Unchanged},
	}
	var id int64
	for i, st := range steps {
		res, err := ghcomment.Upsert(ctx, client, "octo", "rag", 7, "main", st.body, st.head)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if res.Action != st.want {
			t.Fatalf("step %d: action %q, want %q", i, res.Action, st.want)
		}
		if i == 0 {
			id = res.CommentID
		} else if res.CommentID != id {
			t.Fatalf("step %d: comment %d, want the same comment %d", i, res.CommentID, id)
		}
		if res.Author != ghtest.DefaultUser.Login {
			t.Errorf("author %q, want %q (GET /user)", res.Author, ghtest.DefaultUser.Login)
		}
		if !strings.Contains(res.URL, fmt.Sprintf("#issuecomment-%d", id)) {
			t.Errorf("URL %q", res.URL)
		}
	}
	cs := s.Comments(repoName, 7)
	if len(cs) != 1 {
		t.Fatalf("%d comments, want 1 (no duplicates)", len(cs))
	}
	want := ghcomment.GateMarker("main") + "\n" + ghcomment.HeadMarker(head2) + "\nsecond report"
	if cs[0].Body != want {
		t.Errorf("body:\n%s\nwant:\n%s", cs[0].Body, want)
	}
	if n := s.Count("PATCH", "/repos/octo/rag/issues/comments/"); n != 1 {
		t.Errorf("%d PATCH requests, want 1 (unchanged body is not re-sent)", n)
	}
	for _, r := range s.Requests() {
		if !strings.HasPrefix(r.RawPath, "/api/v3/") {
			t.Errorf("request %s %s without the Enterprise prefix", r.Method, r.RawPath)
		}
	}
}

func TestUpsertFindsCommentOnThirdPage(t *testing.T) {
	s := newServer(t)
	client, _ := newClient(t, s)
	var ours int64
	for i := range 250 {
		if i == 230 {
			ours = s.AddComment(repoName, 3, ghtest.DefaultUser, ghcomment.GateMarker("main")+"\nold report")
			continue
		}
		s.AddComment(repoName, 3, ghtest.User(fmt.Sprintf("user%d", i%7)), fmt.Sprintf("comment %d", i))
	}
	res, err := ghcomment.Upsert(context.Background(), client, "octo", "rag", 3, "main", "new report", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != ghcomment.Updated || res.CommentID != ours {
		t.Fatalf("got %+v, want update of comment %d", res, ours)
	}
	if n := len(s.Comments(repoName, 3)); n != 250 {
		t.Errorf("%d comments, want 250", n)
	}
	var pages []string
	for _, r := range s.Requests() {
		if r.Method == "GET" && strings.HasSuffix(r.Path, "/issues/3/comments") {
			pages = append(pages, r.RawQuery)
		}
	}
	if len(pages) != 3 {
		t.Fatalf("listed %d pages (%q), want 3", len(pages), pages)
	}
	for _, q := range pages {
		if !strings.Contains(q, "per_page=100") {
			t.Errorf("page query %q without per_page=100", q)
		}
	}
}

func TestUpsertIgnoresOtherAuthorsAndGates(t *testing.T) {
	s := newServer(t)
	client, _ := newClient(t, s)
	// Someone quoting our marker, and our own comment for another gate.
	before := map[int64]string{
		s.AddComment(repoName, 5, ghtest.User("mallory"), ghcomment.GateMarker("main")+"\nfake"):            "",
		s.AddComment(repoName, 5, ghtest.DefaultUser, ghcomment.GateMarker("main2")+"\nother gate"):         "",
		s.AddComment(repoName, 5, ghtest.DefaultUser, "see `"+ghcomment.GateMarker("main")+"` in the docs"): "",
	}
	for _, c := range s.Comments(repoName, 5) {
		before[c.ID] = c.Body
	}

	res, err := ghcomment.Upsert(context.Background(), client, "octo", "rag", 5, "main", "report", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != ghcomment.Created {
		t.Fatalf("action %q, want created", res.Action)
	}
	after := s.Comments(repoName, 5)
	if len(after) != 4 {
		t.Fatalf("%d comments, want 4", len(after))
	}
	for _, c := range after {
		if b, ok := before[c.ID]; ok && b != c.Body {
			t.Errorf("comment %d by %s was changed to %q", c.ID, c.User.Login, c.Body)
		}
	}
}

func TestUpsertIntegrationToken(t *testing.T) {
	s := newServer(t)
	s.UseIntegrationToken(ghtest.ActionsBot)
	client, _ := newClient(t, s)
	ctx := context.Background()

	res, err := ghcomment.Upsert(ctx, client, "octo", "rag", 9, "main", "one", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Author != ghcomment.DefaultBotLogin || res.Action != ghcomment.Created {
		t.Fatalf("got %+v, want created by %s", res, ghcomment.DefaultBotLogin)
	}
	res2, err := ghcomment.Upsert(ctx, client, "octo", "rag", 9, "main", "two", "")
	if err != nil {
		t.Fatal(err)
	}
	if res2.Action != ghcomment.Updated || res2.CommentID != res.CommentID {
		t.Fatalf("second upsert %+v, want update of %d", res2, res.CommentID)
	}

	// An app installation token comments as <slug>[bot]: the caller says so.
	app := ghtest.Identity{Login: "raggate-app[bot]", ID: 777, Type: "Bot"}
	s.UseIntegrationToken(app)
	c := &ghcomment.Commenter{Client: client, Author: app.Login}
	res3, err := c.Upsert(ctx, "octo", "rag", 9, "main", "three", "")
	if err != nil {
		t.Fatal(err)
	}
	if res3.Action != ghcomment.Created || res3.Author != app.Login {
		t.Fatalf("app upsert %+v, want a new comment by %s (the bot's comment is not the app's)", res3, app.Login)
	}
	if n := s.Count("GET", "/user"); n != 2 {
		t.Errorf("GET /user called %d times, want 2 (once per Upsert call; none with Author set)", n)
	}

	// A Commenter asks once.
	s.ResetRequests()
	s.UseIntegrationToken(ghtest.ActionsBot)
	cached := &ghcomment.Commenter{Client: client}
	for _, gate := range []string{"a", "b", "c"} {
		if _, err := cached.Upsert(ctx, "octo", "rag", 9, gate, "x", ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Count("GET", "/user"); n != 1 {
		t.Errorf("GET /user called %d times by one Commenter, want 1", n)
	}
}

// A GitHub App installation token (actions/create-github-app-token) may
// not read GET /user and comments as "<slug>[bot]": the identity comes from
// GraphQL's viewer, so later runs find and update the app's own comment.
func TestUpsertAppInstallationToken(t *testing.T) {
	app := ghtest.Identity{Login: "raggate-app[bot]", ID: 777, Type: "Bot"}
	enterprise := newServer(t)
	entClient, _ := newClient(t, enterprise)
	dotcom := ghtest.NewServer(t)
	tests := []struct {
		name   string
		server *ghtest.Server
		client *github.Client
		path   string
	}{
		{"GitHub Enterprise Server", enterprise, entClient, "/api/graphql"},
		{"github.com", dotcom, dotcom.Client(), "/graphql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.server
			s.UseIntegrationToken(app)
			// The workflow token's comment with the same marker is not ours.
			other := s.AddComment(repoName, 9, ghtest.ActionsBot, ghcomment.GateMarker("main")+"\nnot the app's")
			ctx := context.Background()
			var first ghcomment.Result
			for i, body := range []string{"one", "two"} {
				// A new Commenter per run, as in two workflow runs.
				res, err := (&ghcomment.Commenter{Client: tt.client}).Upsert(ctx, "octo", "rag", 9, "main", body, "")
				if err != nil {
					t.Fatal(err)
				}
				if res.Author != app.Login || res.AuthorAssumed {
					t.Fatalf("run %d: author %q (assumed %v), want %q from GraphQL", i+1, res.Author, res.AuthorAssumed, app.Login)
				}
				if i == 0 {
					first = res
				} else if res.Action != ghcomment.Updated || res.CommentID != first.CommentID || res.CommentID == other {
					t.Fatalf("second run %+v, want the app's comment %d updated", res, first.CommentID)
				}
			}
			if n := len(s.Comments(repoName, 9)); n != 2 {
				t.Errorf("%d comments, want the bot's and one of the app's", n)
			}
			var rawPaths []string
			for _, r := range s.Requests() {
				if r.Path == "/graphql" {
					rawPaths = append(rawPaths, r.RawPath)
				}
			}
			if len(rawPaths) != 2 || rawPaths[0] != tt.path {
				t.Errorf("GraphQL requests at %v, want two at %s", rawPaths, tt.path)
			}
		})
	}
}

// When neither GET /user nor GraphQL says who the token is, Upsert assumes
// the workflow token's bot and says it assumed.
func TestUpsertIdentityAssumedWhenGraphQLFails(t *testing.T) {
	s := newServer(t)
	s.UseIntegrationToken(ghtest.ActionsBot)
	s.FailMatching("POST", "/graphql", -1, ghtest.ServerError)
	client, _ := newClient(t, s)
	res, err := ghcomment.Upsert(context.Background(), client, "octo", "rag", 9, "main", "one", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Author != ghcomment.DefaultBotLogin || !res.AuthorAssumed {
		t.Errorf("author %q assumed %v, want %s assumed", res.Author, res.AuthorAssumed, ghcomment.DefaultBotLogin)
	}
}

func TestUpsertOlderHeadDoesNotOverwrite(t *testing.T) {
	s := newServer(t)
	client, _ := newClient(t, s)
	ctx := context.Background()
	h := s.History(repoName, "feature", 3) // h[0] <- h[1] <- h[2]
	rewritten := s.AddCommit(repoName, "rebased", h[0])

	if _, err := ghcomment.Upsert(ctx, client, "octo", "rag", 1, "main", "report for h1", h[1]); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		head string
		want ghcomment.Action
	}{
		{"older head", h[0], ghcomment.Skipped},
		{"same head, new body", h[1], ghcomment.Updated},
		{"newer head", h[2], ghcomment.Updated},
		{"older again", h[1], ghcomment.Skipped},
		{"diverged after force-push", rewritten, ghcomment.Updated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := "report for " + tt.name
			res, err := ghcomment.Upsert(ctx, client, "octo", "rag", 1, "main", body, tt.head)
			if err != nil {
				t.Fatal(err)
			}
			if res.Action != tt.want {
				t.Fatalf("action %q, want %q (%s)", res.Action, tt.want, res.Reason)
			}
			got := s.Comments(repoName, 1)[0].Body
			if (tt.want == ghcomment.Skipped) == strings.Contains(got, body) {
				t.Errorf("body after %s: %q", tt.want, got)
			}
			if tt.want == ghcomment.Skipped && res.Reason == "" {
				t.Error("skipped without a reason")
			}
		})
	}

	// A recorded head GitHub does not know (garbage-collected) is replaced.
	unknown := strings.Repeat("ab", 20)
	first, err := ghcomment.Upsert(ctx, client, "octo", "rag", 2, "main", "x", unknown)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ghcomment.Upsert(ctx, client, "octo", "rag", 2, "main", "y", h[2])
	if err != nil || res.Action != ghcomment.Updated || res.CommentID != first.CommentID {
		t.Fatalf("unknown recorded head: %+v, %v; want update of %d", res, err, first.CommentID)
	}
	if res.PreviousHead != unknown {
		t.Errorf("PreviousHead %q, want %q", res.PreviousHead, unknown)
	}
}

func TestUpsertForkReadOnly(t *testing.T) {
	s := newServer(t)
	s.UseIntegrationToken(ghtest.ActionsBot)
	s.SetReadOnly(true)
	client, _ := newClient(t, s)
	_, err := ghcomment.Upsert(context.Background(), client, "octo", "rag", 4, "main", "report", "")
	if !errors.Is(err, ghcomment.ErrNoPermission) {
		t.Fatalf("err = %v, want ErrNoPermission", err)
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Message != "Resource not accessible by integration" {
		t.Errorf("err does not wrap GitHub's error response: %v", err)
	}
	if !strings.Contains(err.Error(), "pull-requests: write") {
		t.Errorf("error does not say how to fix it: %v", err)
	}
	if n := s.Count("POST", "/repos/"); n != 1 {
		t.Errorf("%d POSTs, want 1 (permission errors are not retried)", n)
	}
}

func TestRateLimitRetries(t *testing.T) {
	tests := []struct {
		name      string
		fault     ghtest.Fault
		failures  int
		opts      []ghapi.Option
		wantErr   error
		wantWaits int
	}{
		{"secondary 403 retried", ghtest.SecondaryRateLimit, 2, nil, nil, 2},
		{"secondary 429 retried", ghtest.SecondaryRateLimit429, 3, nil, nil, 3},
		{"primary limit retried", ghtest.PrimaryRateLimit, 1, nil, nil, 1},
		{"502 on GET retried", ghtest.ServerError, 1, nil, nil, 1},
		{"exhausted", ghtest.SecondaryRateLimit, 10, nil, ghcomment.ErrRateLimited, 3},
		{"retries disabled", ghtest.SecondaryRateLimit, 1, []ghapi.Option{ghapi.WithMaxRetries(0)}, ghcomment.ErrRateLimited, 0},
		{"wait beyond cap not attempted", ghtest.SecondaryRateLimit, 1, []ghapi.Option{ghapi.WithMaxWait(500 * time.Millisecond)}, ghcomment.ErrRateLimited, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			client, sl := newClient(t, s, tt.opts...)
			s.FailNext(tt.failures, tt.fault)
			res, err := ghcomment.Upsert(context.Background(), client, "octo", "rag", 2, "main", "body", "")
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			} else if err != nil || res.Action != ghcomment.Created {
				t.Fatalf("got %+v, %v; want created", res, err)
			}
			waits := sl.Waits()
			if len(waits) != tt.wantWaits {
				t.Fatalf("waits %v, want %d", waits, tt.wantWaits)
			}
			for _, w := range waits {
				if w <= 0 || w > 3*time.Second {
					t.Errorf("wait %v: want about the announced second", w)
				}
			}
			if tt.wantErr == nil && len(s.Comments(repoName, 2)) != 1 {
				t.Errorf("want exactly one comment")
			}
		})
	}
}

func TestRetryReplaysPostBody(t *testing.T) {
	s := newServer(t)
	client, _ := newClient(t, s)
	// Let GET /user and the listing through, then limit the POST.
	s.OnRequest(func(r *http.Request) {
		if r.Method == "POST" {
			s.OnRequest(nil)
			s.FailNext(1, ghtest.SecondaryRateLimit)
		}
	})
	res, err := ghcomment.Upsert(context.Background(), client, "octo", "rag", 8, "main", "the body", "")
	if err != nil || res.Action != ghcomment.Created {
		t.Fatalf("%+v, %v", res, err)
	}
	if n := s.Count("POST", "/repos/octo/rag/issues/8/comments"); n != 2 {
		t.Errorf("%d POSTs, want 2", n)
	}
	if got := s.Comments(repoName, 8)[0].Body; !strings.HasSuffix(got, "\nthe body") {
		t.Errorf("body after retry %q", got)
	}
}

func TestSleepHonoursContext(t *testing.T) {
	s := newServer(t)
	client, err := ghapi.NewClient("t0ken", s.URL, s.HTTPClient())
	if err != nil {
		t.Fatal(err)
	}
	s.SetRetryAfter(30 * time.Second)
	s.FailNext(5, ghtest.SecondaryRateLimit)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = ghcomment.Upsert(ctx, client, "octo", "rag", 1, "main", "b", "")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestBodyLimitsAndValidation(t *testing.T) {
	s := newServer(t)
	client, _ := newClient(t, s)
	ctx := context.Background()
	overhead := len(ghcomment.GateMarker("main")) + 1
	tests := []struct {
		name    string
		gate    string
		body    string
		head    string
		wantErr error
		errText string
	}{
		{"fits exactly", "main", strings.Repeat("é", ghcomment.MaxBodyChars-overhead), "", nil, ""},
		{"one too many", "main", strings.Repeat("x", ghcomment.MaxBodyChars-overhead+1), "", ghcomment.ErrBodyTooLarge, "65536"},
		{"empty gate", "", "b", "", nil, "invalid gate"},
		{"marker injection", "x -->", "b", "", nil, "invalid gate"},
		{"newline gate", "a\nb", "b", "", nil, "invalid gate"},
		{"bad sha", "main", "b", "not-a-sha", nil, "invalid head sha"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.ResetRequests()
			_, err := ghcomment.Upsert(ctx, client, "octo", "rag", 11, tt.gate, tt.body, tt.head)
			switch {
			case tt.wantErr == nil && tt.errText == "":
				if err != nil {
					t.Fatal(err)
				}
			default:
				if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %v containing %q", err, tt.wantErr, tt.errText)
				}
				if n := len(s.Requests()); n != 0 {
					t.Errorf("%d requests made for an invalid comment", n)
				}
			}
		})
	}
}

func TestUpsertBadArguments(t *testing.T) {
	s := newServer(t)
	client, _ := newClient(t, s)
	ctx := context.Background()
	if _, err := ghcomment.Upsert(ctx, client, "octo", "rag", 0, "main", "b", ""); err == nil {
		t.Error("pr 0 accepted")
	}
	if _, err := ghcomment.Upsert(ctx, client, "", "rag", 1, "main", "b", ""); err == nil {
		t.Error("empty owner accepted")
	}
	if _, err := ghcomment.Upsert(ctx, nil, "octo", "rag", 1, "main", "b", ""); err == nil {
		t.Error("nil client accepted")
	}
	bad, _ := newClient(t, ghtest.NewServer(t, ghtest.Enterprise(), ghtest.WithToken("other")))
	if _, err := ghcomment.Upsert(ctx, bad, "octo", "rag", 1, "main", "b", ""); err == nil || !strings.Contains(err.Error(), "bad credentials") {
		t.Errorf("bad token: %v", err)
	}
}

func TestCompose(t *testing.T) {
	got, err := ghcomment.Compose("rag eval/v2", "ABCDEF1234567", "hello")
	if err != nil {
		t.Fatal(err)
	}
	want := "<!-- raggate:gate=rag eval/v2 -->\n<!-- raggate:head=abcdef1234567 -->\nhello"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestComposeReplacesRenderedMarkers(t *testing.T) {
	body := "<!-- raggate:gate=other -->\n<!-- raggate:head=0000000 -->\n### result\n\ntext"
	got, err := ghcomment.Compose("g", "abc1234", body)
	if err != nil {
		t.Fatal(err)
	}
	want := "<!-- raggate:gate=g -->\n<!-- raggate:head=abc1234 -->\n### result\n\ntext"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
