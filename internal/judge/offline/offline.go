package offline

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// HeuristicVersion names the behaviour of this package. Bump it whenever an
// answer of any step can change (splitting, stop words, stemming,
// thresholds, phrases, hashing), so results judged before and after get
// different judge fingerprints.
const HeuristicVersion = "offline-heuristics-v5"

const (
	// ModelName is Info().Model.
	ModelName = "offline-lexical-v1"
	// EmbeddingModelPrefix is Info().EmbeddingModel without the dimension.
	EmbeddingModelPrefix = "offline-hashed-ngrams-v1-"
	// Provider is Info().Provider.
	Provider = "offline"
)

// Defaults used for zero Options fields.
const (
	// DefaultDim is the embedding dimension.
	DefaultDim = 256
	// MaxDim is the largest embedding dimension accepted.
	MaxDim = 1 << 16
	// DefaultVerifyThreshold is the fraction of a statement's distinct
	// content words that the evidence window must contain.
	DefaultVerifyThreshold = 0.7
	// DefaultUsefulThreshold is the fraction of the answer's new content
	// words and numbers that a context must contain to be useful.
	DefaultUsefulThreshold = 0.5
	// DefaultWindow is the largest number of consecutive evidence sentences
	// a statement is checked against.
	DefaultWindow = 3
)

// Options configures a Judge. The zero value is usable: every zero or
// out-of-range field takes its default.
type Options struct {
	// Dim is the embedding dimension, in [1, MaxDim] (default DefaultDim).
	Dim int
	// VerifyThreshold is the content-word coverage a statement needs to be
	// supported, in (0, 1] (default DefaultVerifyThreshold).
	VerifyThreshold float64
	// UsefulThreshold is the coverage of the answer a context needs to be
	// useful, in (0, 1] (default DefaultUsefulThreshold).
	UsefulThreshold float64
}

// withDefaults returns o with every zero or out-of-range field defaulted.
func (o Options) withDefaults() Options {
	if o.Dim <= 0 || o.Dim > MaxDim {
		o.Dim = DefaultDim
	}
	if !(o.VerifyThreshold > 0 && o.VerifyThreshold <= 1) {
		o.VerifyThreshold = DefaultVerifyThreshold
	}
	if !(o.UsefulThreshold > 0 && o.UsefulThreshold <= 1) {
		o.UsefulThreshold = DefaultUsefulThreshold
	}
	return o
}

// Judge is the offline judge (see the package doc for its heuristics). Its
// only mutable state is a bounded cache of the lexical analyses of recent
// texts, which changes no answer; it is safe for concurrent use. The zero
// value behaves like New(Options{}) (without the cache).
type Judge struct {
	opts Options
	lex  *lexCache
}

// Unreliable are the metrics the offline judge cannot score reliably: the
// catalogue's metrics declared OfflineUnreliable (measured on labelled
// pairs, honesty_test.go: it ranks the better of two candidates higher in
// less than 0.70 of the pairs of at least one kind of flaw; or on human
// labels with an independent reference, human_test.go: it does not beat a
// trivial lexical baseline clearly on every set, or was never measured).
// context_utilization has no pairs of its own: it rests on the same
// usefulness verdicts as context_precision and precision_at_k, which rank
// contexts backwards. They are left out of the offline default suite, and
// a run that asks for one anyway leaves it undefined (Declines).
var Unreliable = unreliable()

func unreliable() []string {
	var out []string
	for _, m := range metrics.Catalogue() {
		if m.OfflineUnreliable {
			out = append(out, m.Name)
		}
	}
	return out
}

// Declines returns the reason the offline judge gives for leaving metric
// undefined, or "" when it scores the metric.
func Declines(metric string) string {
	if slices.Contains(Unreliable, metric) {
		return "offline judge cannot score " + metric + " reliably; use an LLM judge"
	}
	return ""
}

// DefaultSuite is metrics.DefaultSuite without the Unreliable metrics: the
// metrics a run with the offline judge computes when none are named.
func DefaultSuite(has func(metrics.Field) bool) []metrics.Metric {
	return slices.DeleteFunc(metrics.DefaultSuite(has), func(m metrics.Metric) bool { return Declines(m.Name) != "" })
}

var (
	_ judge.Judge     = (*Judge)(nil)
	_ judge.Describer = (*Judge)(nil)
)

// New returns an offline judge.
func New(opts Options) *Judge {
	return &Judge{opts: opts.withDefaults(), lex: newLexCache()}
}

// cache returns the judge's cache of lexical analyses (nil: none).
func (j *Judge) cache() *lexCache {
	if j == nil {
		return nil
	}
	return j.lex
}

func (j *Judge) options() Options {
	if j == nil {
		return Options{}.withDefaults()
	}
	return j.opts.withDefaults()
}

// Info describes the judge: its heuristic version and settings are part of
// the judge fingerprint.
func (j *Judge) Info() judge.Info {
	o := j.options()
	return judge.Info{
		Provider:       Provider,
		Model:          ModelName,
		EmbeddingModel: EmbeddingModelPrefix + strconv.Itoa(o.Dim),
		Temperature:    0,
		Prompts: fmt.Sprintf("%s verify>=%s useful>=%s window=%d", HeuristicVersion,
			strconv.FormatFloat(o.VerifyThreshold, 'g', -1, 64),
			strconv.FormatFloat(o.UsefulThreshold, 'g', -1, 64), DefaultWindow),
	}
}

// Ask answers one chat step. A wrong input type or an unknown step is a
// programming error and returns a *judge.Fatal; a cancelled ctx returns
// ctx.Err(). Usage stays zero.
func (j *Judge) Ask(ctx context.Context, req judge.Request) (judge.Answer, error) {
	if err := ctx.Err(); err != nil {
		return judge.Answer{}, err
	}
	o := j.options()
	switch req.Step {
	case metrics.StepStatements:
		in, err := input[metrics.StatementsInput](req)
		if err != nil {
			return judge.Answer{}, err
		}
		return judge.Answer{Statements: &metrics.StatementsOutput{Statements: splitStatements(in.Text)}}, nil
	case metrics.StepVerify:
		in, err := input[metrics.VerifyInput](req)
		if err != nil {
			return judge.Answer{}, err
		}
		out, err := verify(ctx, j.cache(), in, o.VerifyThreshold)
		if err != nil {
			return judge.Answer{}, err
		}
		return judge.Answer{Verify: out}, nil
	case metrics.StepUseful:
		in, err := input[metrics.UsefulInput](req)
		if err != nil {
			return judge.Answer{}, err
		}
		return judge.Answer{Useful: useful(in, o.UsefulThreshold)}, nil
	case metrics.StepQuestion:
		in, err := input[metrics.QuestionInput](req)
		if err != nil {
			return judge.Answer{}, err
		}
		q := metrics.QuestionOutput{Question: in.Response, Noncommittal: boolInt(noncommittal(in.Response))}
		qs := make([]metrics.QuestionOutput, req.Count())
		for i := range qs {
			qs[i] = q
		}
		return judge.Answer{Questions: qs}, nil
	case metrics.StepClaims, metrics.StepAttribute, metrics.StepVerifyPair:
		return j.askMore(ctx, req, o)
	case metrics.StepCritic, metrics.StepRubric:
		// A lexical heuristic cannot apply a criterion written in words:
		// the score is undefined, honestly, rather than guessed.
		return judge.Answer{}, &judge.Undefined{Reason: judge.ErrNeedsLLM.Error(), Err: judge.ErrNeedsLLM}
	case metrics.StepEmbed:
		return judge.Answer{}, &judge.Fatal{Err: fmt.Errorf("offline judge: step %q is answered by Embed, not Ask", req.Step)}
	default:
		return judge.Answer{}, &judge.Fatal{Err: fmt.Errorf("offline judge: unknown step %q", req.Step)}
	}
}

// askMore answers the claims, attribute and verify_pair steps.
func (j *Judge) askMore(ctx context.Context, req judge.Request, o Options) (judge.Answer, error) {
	switch req.Step {
	case metrics.StepClaims:
		in, err := input[metrics.ClaimsInput](req)
		if err != nil {
			return judge.Answer{}, err
		}
		return judge.Answer{Claims: claims(in)}, nil
	case metrics.StepAttribute:
		in, err := input[metrics.AttributeInput](req)
		if err != nil {
			return judge.Answer{}, err
		}
		out, err := attribute(ctx, j.cache(), in, o.VerifyThreshold)
		return judge.Answer{Attribute: out}, err
	default:
		in, err := input[metrics.VerifyPairInput](req)
		if err != nil {
			return judge.Answer{}, err
		}
		out, err := verifyPair(ctx, j.cache(), in, o.VerifyThreshold)
		return judge.Answer{VerifyPair: out}, err
	}
}

// Embed returns one L2-normalised hashed-feature vector per text, in order.
// Usage stays zero.
func (j *Judge) Embed(ctx context.Context, texts []string) (judge.Embedding, error) {
	dim := j.options().Dim
	vecs := make([][]float64, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return judge.Embedding{}, err
		}
		vecs[i] = embed(bound(t), dim)
	}
	return judge.Embedding{Vectors: vecs}, nil
}

// input extracts the step input of type T (or a non-nil *T) from req.
func input[T any](req judge.Request) (T, error) {
	if v, ok := judge.InputAs[T](req.Input); ok {
		boundInput(&v)
		return v, nil
	}
	var zero T
	return zero, &judge.Fatal{Err: fmt.Errorf("offline judge: step %q needs input %T, got %T", req.Step, zero, req.Input)}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MaxText bounds each text the judge works on (a response, a reference,
// the evidence, a statement): a longer one is judged on its first MaxText
// bytes, so that a huge response costs the judge what one of 256 KiB
// does, not gigabytes.
const MaxText = 256 << 10

// bound cuts s to MaxText bytes, at a character boundary.
func bound(s string) string {
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// boundAll returns ss with each text bounded (a copy when one is cut).
func boundAll(ss []string) []string {
	out, cloned := ss, false
	for i, s := range ss {
		if b := bound(s); len(b) != len(s) {
			if !cloned {
				out, cloned = slices.Clone(ss), true
			}
			out[i] = b
		}
	}
	return out
}

// boundInput bounds the texts of a step's input (a pointer to it).
func boundInput(in any) {
	switch in := in.(type) {
	case *metrics.StatementsInput:
		in.Text = bound(in.Text)
	case *metrics.VerifyInput:
		in.Statements, in.Evidence = boundAll(in.Statements), bound(in.Evidence)
	case *metrics.UsefulInput:
		in.Context, in.Answer = bound(in.Context), bound(in.Answer)
	case *metrics.QuestionInput:
		in.Response = bound(in.Response)
	case *metrics.ClaimsInput:
		in.Text = bound(in.Text)
	case *metrics.AttributeInput:
		in.Context, in.Reference = bound(in.Context), bound(in.Reference)
	case *metrics.VerifyPairInput:
		in.ReferenceStatements, in.ResponseStatements, in.Evidence = boundAll(in.ReferenceStatements), boundAll(in.ResponseStatements), bound(in.Evidence)
	}
}
