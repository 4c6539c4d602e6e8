package cli

import "github.com/raggate/raggate/internal/app"

// short is a commit's short form in the tests' messages (app.Short).
func short(sha string) string { return app.Short(sha) }
