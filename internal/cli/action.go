package cli

import (
	"context"

	"github.com/raggate/raggate/internal/action"
)

// actionCmd is the container entrypoint: the action front end (package
// action) reads the inputs GitHub passes (INPUT_*) and runs check,
// baseline or comment mode.
func actionCmd(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("action", env, "(no flags: inputs come from INPUT_* variables; see action.yml)")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	return action.Run(ctx, env.app(), env.Stdout, env.rawStdout())
}
