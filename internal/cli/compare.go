package cli

import "context"

func compareCmd(ctx context.Context, env Env, args []string) error {
	return usageErr("compare: not available yet")
}

func checkCmd(ctx context.Context, env Env, args []string) error {
	return usageErr("check: not available yet")
}
