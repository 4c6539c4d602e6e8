package offline

import (
	"context"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// claims is the claims step: sentences (atomicity low) or the clauses of
// the statements step (atomicity high); coverage low drops parenthetical
// asides, the minor details a lexical judge can recognise.
func claims(in metrics.ClaimsInput) *metrics.ClaimsOutput {
	out := []string{}
	seen := map[string]bool{}
	for _, c := range splitUnits(in.Text, in.Atomicity == metrics.LevelHigh) {
		if in.Coverage != metrics.LevelHigh {
			c = finishStatement(dropAsides(c))
		}
		key := strings.ToLower(c)
		if c == "" || !hasContent(c) || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c)
	}
	if len(out) == 0 {
		out = splitStatements(in.Text)
	}
	return &metrics.ClaimsOutput{Claims: out}
}

// dropAsides removes balanced parenthesised or bracketed spans and the
// space before them: "The Rhine (1,230 km) flows" -> "The Rhine flows".
func dropAsides(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(' || r == '[':
			depth++
		case (r == ')' || r == ']') && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	if depth > 0 {
		return s // unbalanced: keep the text as it is
	}
	return strings.Join(strings.Fields(strings.NewReplacer(" ,", ",", " .", ".").Replace(b.String())), " ")
}

// attribute is the attribute step: each sentence of the reference is one
// item, attributed when every clause of it verifies against the joined
// contexts (each clause in its own window, so a sentence whose facts come
// from two contexts can be attributed).
func attribute(ctx context.Context, lex *lexCache, in metrics.AttributeInput, threshold float64) (*metrics.AttributeOutput, error) {
	sents := splitUnits(in.Reference, false)
	if len(sents) == 0 {
		sents = splitStatements(in.Reference)
	}
	ev := newEvidence(lex, in.Context)
	var m matches
	out := &metrics.AttributeOutput{Sentences: make([]metrics.SentenceVerdict, len(sents))}
	for i, s := range sents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := metrics.SentenceVerdict{Sentence: s, Attributed: 1}
		for _, c := range splitUnits(s, true) {
			verdict, _, reason := verifyOne(lex.bag(c), ev, threshold, &m)
			v.Reason = reason
			if verdict == 0 {
				v.Attributed = 0
				break
			}
		}
		out.Sentences[i] = v
	}
	return out, nil
}

// verifyPair is the verify_pair step: the two lists verified one by one.
func verifyPair(ctx context.Context, lex *lexCache, in metrics.VerifyPairInput, threshold float64) (*metrics.VerifyPairOutput, error) {
	ev := newEvidence(lex, in.Evidence)
	ref, err := verifyAgainst(ctx, lex, in.ReferenceStatements, ev, threshold)
	if err != nil {
		return nil, err
	}
	resp, err := verifyAgainst(ctx, lex, in.ResponseStatements, ev, threshold)
	if err != nil {
		return nil, err
	}
	return &metrics.VerifyPairOutput{ReferenceVerdicts: ref.Verdicts, ResponseVerdicts: resp.Verdicts}, nil
}
