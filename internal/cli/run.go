package cli

import (
	"context"
	"fmt"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

func runCmd(ctx context.Context, env Env, args []string) error {
	o := defaultOptions()
	fs := newFlagSet("run", env, "--dataset FILE [--responses FILE] [--field k=v ...] [--metrics a,b] [--judge offline|openai] [--out results.json]")
	o.bindDataset(fs)
	o.bindJudge(fs)
	o.bindOut(fs)
	o.bindTarget(fs)
	textVar(fs, &o.Shard, "shard", app.CheckShard, "judge only shard `i/n` of the dataset (by a hash of the sample id); combine the shards with gate merge")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if err := o.validate(env, "run"); err != nil {
		return err
	}
	if err := o.loadUserMetrics(env); err != nil {
		return err
	}
	res, err := app.RunOnDisk(ctx, env.app(), o.RunConfig)
	if err == nil {
		defer res.Close()
	}
	if res != nil && res.Estimate != nil {
		printEstimate(env, res.Estimate)
	}
	if f := fileOf(res); f != nil {
		if terr := report.RunTable(env.Stdout, f); terr != nil {
			return terr
		}
		fmt.Fprintf(env.Stderr, "wrote %s (%d samples, judge %s)\n", o.Out, f.Len(), f.Judge.Provider)
	}
	return err
}

// fileOf is the results file of a run, nil if none was written.
func fileOf(res *app.RunResult) *results.File {
	if res == nil {
		return nil
	}
	return res.File
}

// printEstimate prints what a dry run says a run would cost.
func printEstimate(env Env, e *app.Estimate) {
	w := env.Stdout
	if e.TargetStandIns {
		fmt.Fprintln(w, "with a target, each answer is estimated as the reference (or the question) and its contexts as the reference contexts, where the dataset has none")
	}
	fmt.Fprintf(w, "dry run: %d samples x %d metrics, judge model %q, embeddings %q\n", e.Samples, e.Metrics, e.Model, e.EmbeddingModel)
	fmt.Fprintf(w, "  chat calls         %d (%.1f per sample; before cache hits)\n", e.ChatCalls, float64(e.ChatCalls)/float64(max(1, e.Samples)))
	if e.TargetStandIns {
		if e.MaxChatCallsPerSample > 0 {
			fmt.Fprintf(w, "  at most            %d chat calls (%d per sample) if the target returns --max-contexts %d contexts for every sample\n",
				e.MaxChatCallsPerSample*e.Samples, e.MaxChatCallsPerSample, e.MaxContexts)
		} else {
			fmt.Fprintln(w, "  at most            no bound: --max-contexts 0 judges every context the target returns")
		}
	}
	fmt.Fprintf(w, "  embedding calls    %d (%d texts)\n", e.EmbeddingCalls, e.EmbeddingTexts)
	fmt.Fprintf(w, "  prompt tokens      ~%d\n", e.PromptTokens)
	fmt.Fprintf(w, "  completion tokens  ~%d\n", e.CompletionTokens)
	fmt.Fprintf(w, "  embedding tokens   ~%d\n", e.EmbeddingTokens)
	if e.Priced {
		fmt.Fprintf(w, "  estimated cost     %s (prices as of %s; override with --prices)\n", report.FormatCost(e.CostUSD), e.PricesAsOf)
	} else {
		fmt.Fprintf(w, "  estimated cost     unknown: no price for %q (give one with --prices)\n", e.Model)
	}
}
