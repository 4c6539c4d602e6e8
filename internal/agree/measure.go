package agree

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/suggest"
)

// Kind is the kind of labels.
type Kind string

// The label kinds.
const (
	KindBinary   Kind = "binary"
	KindGraded   Kind = "graded"
	KindPairwise Kind = "pairwise"
)

// Spec says where the labels are and how to read them.
type Spec struct {
	// Label is the metadata key holding each row's label.
	Label string
	// Positive are the label values of a good answer (binary text labels,
	// matched ignoring case and surrounding space). Empty: labels are
	// numbers, 1 (or true) positive and 0 (or false) negative.
	Positive []string
	// Kind is the label kind; "" picks one: pairwise with PairBy, binary
	// with Positive or labels that are all 0/1, else graded.
	Kind Kind
	// Threshold: a score at or above it predicts positive (binary labels),
	// in the metric's own units; for a lower-is-better metric a score at or
	// below it does.
	Threshold float64
	// PairBy is the metadata key grouping the two candidates of a pair;
	// the candidate with the higher label (or the positive one) is better.
	PairBy string
	// Show is the number of disagreeing rows listed per metric.
	Show int
	// Source names the file the rows come from, for messages ("" none).
	Source string
	Options
}

// Row is one judged sample: its scores (NaN when undefined) and its
// metadata.
type Row struct {
	ID       string
	Scores   map[string]float64
	Metadata map[string]string
	// Where is the row's place in its file for messages, such as
	// "golden.jsonl:7"; "" names it by Spec.Source and its id.
	Where string
}

// where names the row in a message.
func (r *Row) where(source string) string {
	if r.Where != "" {
		return r.Where
	}
	if source == "" {
		return fmt.Sprintf("sample %q", r.ID)
	}
	return fmt.Sprintf("%s: sample %q", source, r.ID)
}

// errorf is an error of row r (nil: of the whole source), prefixed with
// where it is.
func (spec Spec) errorf(r *Row, format string, args ...any) error {
	loc := spec.Source
	if r != nil {
		loc = r.where(spec.Source)
	}
	if loc == "" {
		return fmt.Errorf(format, args...)
	}
	return fmt.Errorf("%s: %w", loc, fmt.Errorf(format, args...))
}

// Metric names a metric and its direction.
type Metric struct {
	Name          string
	LowerIsBetter bool
	// Lo and Hi are the range of the metric's scores ([0, 1] when both
	// are 0).
	Lo, Hi float64
	// Declined, when set, is the judge's reason for scoring no row of the
	// metric ("offline judge cannot score answer_relevancy reliably"): a
	// minimum on it is refused.
	Declined string
}

// Report is the agreement of every metric with the labels.
type Report struct {
	Kind      Kind     `json:"kind"`
	Label     string   `json:"label"`
	Positive  []string `json:"positive,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	PairBy    string   `json:"pair_by,omitempty"`
	// Rows is the number of rows; Unlabelled of them have no label.
	Rows       int `json:"rows"`
	Unlabelled int `json:"unlabelled"`
	// TiedPairs are pairs whose two labels are equal: no preference, left
	// out. Pairwise reports only; JSON writes them (zeros included) for a
	// pairwise report and leaves them out of the others.
	TiedPairs int `json:"-"`
	// Unpaired are labelled rows alone in their group, left out (as
	// TiedPairs).
	Unpaired int            `json:"-"`
	Metrics  []MetricReport `json:"metrics"`
	// Warnings say why figures are undefined for every metric: labels of
	// one class, no pair.
	Warnings []string `json:"warnings,omitempty"`
}

// MetricReport is one metric's agreement with the labels.
type MetricReport struct {
	Metric string `json:"metric"`
	// Direction is "higher" or "lower" (is better).
	Direction string `json:"direction"`
	// Undefined counts labelled rows (or pairs) left out because the judge
	// gave no score.
	Undefined     int             `json:"undefined"`
	Binary        *BinaryResult   `json:"binary,omitempty"`
	Graded        *GradedResult   `json:"graded,omitempty"`
	Pairwise      *PairwiseResult `json:"pairwise,omitempty"`
	Disagreements []Disagreement  `json:"disagreements"`
	// Declined is Metric.Declined.
	Declined string `json:"-"`
}

// labelled is a row with a label value read.
type labelled struct {
	row   *Row
	label float64
	text  string
}

// Measure reads the labels of rows as spec says and measures each metric
// of ms against them. An error means the labels cannot be read (no row has
// the label, a value that is not a label, such as a typo beside the
// --positive values and the one other value, a pair that is not two rows):
// its text says which row and how to fix it.
func Measure(rows []Row, ms []Metric, spec Spec) (*Report, error) {
	if err := checkKeys(rows, spec); err != nil {
		return nil, err
	}
	kind, err := pickKind(rows, spec)
	if err != nil {
		return nil, err
	}
	rep := &Report{Kind: kind, Label: spec.Label, Positive: spec.Positive, PairBy: spec.PairBy, Rows: len(rows)}
	var ls []labelled
	for i := range rows {
		v, ok := rows[i].Metadata[spec.Label]
		if !ok || strings.TrimSpace(v) == "" {
			rep.Unlabelled++
			continue
		}
		x, err := parseLabel(v, kind, spec.Positive)
		if err != nil {
			return nil, spec.errorf(&rows[i], "label %s=%q: %w", spec.Label, v, err)
		}
		ls = append(ls, labelled{row: &rows[i], label: x, text: strings.TrimSpace(v)})
	}
	if err := checkOtherValue(ls, spec); err != nil {
		return nil, err
	}
	var pairs [][2]labelled
	if kind == KindPairwise {
		if pairs, rep.TiedPairs, rep.Unpaired, err = pairUp(ls, spec); err != nil {
			return nil, err
		}
	}
	if kind == KindBinary {
		t := spec.Threshold
		rep.Threshold = &t
	}
	rep.Warnings = warnings(rep, ls, pairs, spec)
	for _, m := range ms {
		rep.Metrics = append(rep.Metrics, measureMetric(m, kind, ls, pairs, spec))
	}
	return rep, nil
}

// checkOtherValue fails, with --positive, on a label that is neither a
// positive value nor the one other value (the most frequent of the rest):
// a typo such as "N0" or "Yse" must not count as a negative.
func checkOtherValue(ls []labelled, spec Spec) error {
	if len(spec.Positive) == 0 {
		return nil
	}
	count, first := map[string]int{}, map[string]string{} // by value ignoring case
	other := ""
	for _, l := range ls {
		if l.label == 1 {
			continue
		}
		k := strings.ToLower(l.text)
		if count[k] == 0 {
			first[k] = l.text
		}
		count[k]++
		if other == "" || count[k] > count[other] {
			other = k
		}
	}
	if len(count) < 2 {
		return nil
	}
	for _, l := range ls {
		if l.label == 1 || strings.ToLower(l.text) == other {
			continue
		}
		hint := "fix the label, or add it to --positive if it marks a good answer"
		if s := suggest.Closest(l.text, append(slices.Clone(spec.Positive), first[other])); s != "" {
			hint = fmt.Sprintf("did you mean %q? (or add it to --positive if it marks a good answer)", strings.TrimSpace(s))
		}
		return spec.errorf(l.row, "label %s=%q is neither a good value (--positive %s) nor the other value %q: %s",
			spec.Label, l.text, strings.Join(spec.Positive, ","), first[other], hint)
	}
	return nil
}

// warnings say why every metric's figures will be undefined: labels of
// one class (binary, or graded labels all equal), or pairwise labels with
// no pair.
func warnings(rep *Report, ls []labelled, pairs [][2]labelled, spec Spec) []string {
	switch {
	case len(ls) == 0:
		return nil
	case rep.Kind == KindPairwise:
		if len(pairs) == 0 && rep.TiedPairs == 0 && rep.Unpaired == len(ls) {
			return []string{fmt.Sprintf("no labelled row has a partner: every value of column %q is on one row (%d rows); a pair is two rows with the same value", spec.PairBy, len(ls))}
		}
		return nil
	}
	for _, l := range ls[1:] {
		if l.label != ls[0].label {
			return nil
		}
	}
	if rep.Kind == KindBinary {
		class := "bad"
		if ls[0].label == 1 {
			class = "good"
		}
		return []string{fmt.Sprintf("every label in column %q is %s (%d rows): the figures need labels of both classes", spec.Label, class, len(ls))}
	}
	return []string{fmt.Sprintf("every label in column %q is %s (%d rows): the figures need labels that differ", spec.Label, ls[0].text, len(ls))}
}

// checkKeys fails when no row has the label (or pair-by) key, naming the
// keys there are.
func checkKeys(rows []Row, spec Spec) error {
	if spec.Label == "" {
		return spec.errorf(nil, "no label key given")
	}
	have := map[string]bool{}
	for i := range rows {
		for k := range rows[i].Metadata {
			have[k] = true
		}
	}
	for _, k := range []string{spec.Label, spec.PairBy} {
		if k == "" || have[k] {
			continue
		}
		if len(have) == 0 {
			return spec.errorf(nil, "no row has a column %q: the rows have no columns besides the fields", k)
		}
		keys := slices.Sorted(maps.Keys(have))
		if s := suggest.Closest(k, keys); s != "" {
			return spec.errorf(nil, "no row has a column %q: did you mean %q? (columns: %s)", k, s, strings.Join(keys, ", "))
		}
		return spec.errorf(nil, "no row has a column %q; the columns kept are %s", k, strings.Join(keys, ", "))
	}
	return nil
}

// pickKind returns spec.Kind or, when empty, the kind the labels imply.
func pickKind(rows []Row, spec Spec) (Kind, error) {
	switch spec.Kind {
	case KindBinary, KindGraded, KindPairwise:
		if spec.Kind == KindPairwise && spec.PairBy == "" {
			return "", fmt.Errorf("pairwise labels need a key grouping the two candidates of a pair")
		}
		return spec.Kind, nil
	case "":
	default:
		return "", fmt.Errorf("label kind %q: want binary, graded or pairwise", spec.Kind)
	}
	if spec.PairBy != "" {
		return KindPairwise, nil
	}
	if len(spec.Positive) > 0 {
		return KindBinary, nil
	}
	for i := range rows {
		v := strings.TrimSpace(rows[i].Metadata[spec.Label])
		if v == "" {
			continue
		}
		if _, err := parseLabel(v, KindBinary, nil); err == nil {
			continue
		}
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return KindGraded, nil
		}
		return "", spec.errorf(&rows[i], "label %s=%q is text: name the label values of a good answer (binary labels), e.g. --positive %q", spec.Label, v, v)
	}
	return KindBinary, nil
}

// parseLabel reads one label value.
func parseLabel(v string, kind Kind, positive []string) (float64, error) {
	v = strings.TrimSpace(v)
	if len(positive) > 0 {
		for _, p := range positive {
			if strings.EqualFold(strings.TrimSpace(p), v) {
				return 1, nil
			}
		}
		return 0, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		if kind == KindBinary {
			return 0, fmt.Errorf("not 0, 1, true or false: name the values of a good answer with --positive")
		}
		return 0, fmt.Errorf("not a number: graded and pairwise labels are numbers (higher is better) unless --positive names the good values")
	}
	if kind == KindBinary && x != 0 && x != 1 {
		return 0, fmt.Errorf("binary labels are 0 or 1: name the values of a good answer with --positive, or read them as grades (--kind graded)")
	}
	return x, nil
}

// pairUp groups the labelled rows by the pair key: a group holds at most
// two rows. Pairs with equal labels and rows alone in their group are
// counted and left out.
func pairUp(ls []labelled, spec Spec) (pairs [][2]labelled, tied, unpaired int, err error) {
	key := spec.PairBy
	groups := map[string][]labelled{}
	var order []string
	for _, l := range ls {
		g, ok := l.row.Metadata[key]
		if !ok || strings.TrimSpace(g) == "" {
			return nil, 0, 0, spec.errorf(l.row, "a label but no %s: every labelled row belongs to a pair", key)
		}
		if _, seen := groups[g]; !seen {
			order = append(order, g)
		}
		groups[g] = append(groups[g], l)
	}
	for _, g := range order {
		p := groups[g]
		switch {
		case len(p) == 1:
			unpaired++
			continue
		case len(p) > 2:
			return nil, 0, 0, spec.errorf(nil, "pair %s=%q has %d labelled rows, want 2 (%s, %s, %s, ...)", key, g, len(p), p[0].row.ID, p[1].row.ID, p[2].row.ID)
		}
		switch {
		case p[0].label == p[1].label:
			tied++
		case p[0].label > p[1].label:
			pairs = append(pairs, [2]labelled{p[0], p[1]})
		default:
			pairs = append(pairs, [2]labelled{p[1], p[0]})
		}
	}
	return pairs, tied, unpaired, nil
}

// measureMetric measures one metric: rows (or pairs) it left undefined
// are counted and left out.
func measureMetric(m Metric, kind Kind, ls []labelled, pairs [][2]labelled, spec Spec) MetricReport {
	sign := 1.0
	r := MetricReport{Metric: m.Name, Direction: "higher", Declined: m.Declined}
	if m.LowerIsBetter {
		sign, r.Direction = -1, "lower"
	}
	item := func(l labelled) (Item, bool) {
		s, ok := l.row.Scores[m.Name]
		if !ok || math.IsNaN(s) {
			return Item{}, false
		}
		return Item{ID: l.row.ID, Score: sign * s, Label: l.label, Text: l.text}, true
	}
	show := spec.Show
	if kind == KindPairwise {
		var ps []Pair
		for _, p := range pairs {
			b, ok1 := item(p[0])
			w, ok2 := item(p[1])
			if !ok1 || !ok2 {
				r.Undefined++
				continue
			}
			ps = append(ps, Pair{Group: p[0].row.Metadata[spec.PairBy], Better: b, Worse: w})
		}
		res := Pairwise(ps, spec.Options)
		r.Pairwise = &res
		r.Disagreements = unorient(PairDisagreements(ps, show), sign)
		return r
	}
	var items []Item
	for _, l := range ls {
		it, ok := item(l)
		if !ok {
			r.Undefined++
			continue
		}
		items = append(items, it)
	}
	lo, hi := m.Lo, m.Hi
	if lo == 0 && hi == 0 {
		hi = 1
	}
	if sign < 0 {
		lo, hi = -hi, -lo
	}
	r.Disagreements = unorient(RowDisagreements(items, show, lo, hi), sign)
	if kind == KindGraded {
		res := Graded(items, spec.Options)
		r.Graded = &res
		return r
	}
	res := Binary(items, sign*spec.Threshold, spec.Options)
	res.At.Threshold *= sign
	res.Best.Threshold *= sign
	r.Binary = &res
	return r
}

// unorient gives disagreements their scores in the metric's own units.
func unorient(ds []Disagreement, sign float64) []Disagreement {
	for i := range ds {
		ds[i].Score *= sign
		if ds[i].OtherScore != nil {
			o := *ds[i].OtherScore * sign
			ds[i].OtherScore = &o
		}
	}
	if ds == nil {
		ds = []Disagreement{}
	}
	return ds
}

// Figures are the names --min accepts, per label kind.
var Figures = map[Kind][]string{
	KindBinary:   {"auc", "balanced_accuracy", "kappa", "best_balanced_accuracy", "best_kappa"},
	KindGraded:   {"spearman", "kendall_tau_b"},
	KindPairwise: {"pairwise_accuracy"},
}

// Figure returns the named figure of the metric's report.
func (r MetricReport) Figure(name string) (Estimate, bool) {
	switch {
	case r.Binary != nil:
		b := r.Binary
		return lookup(name, map[string]Estimate{"auc": b.AUC, "balanced_accuracy": b.At.BalancedAccuracy, "kappa": b.At.Kappa,
			"best_balanced_accuracy": b.Best.BalancedAccuracy, "best_kappa": b.Best.Kappa})
	case r.Graded != nil:
		return lookup(name, map[string]Estimate{"spearman": r.Graded.Spearman, "kendall_tau_b": r.Graded.KendallTauB})
	case r.Pairwise != nil:
		return lookup(name, map[string]Estimate{"pairwise_accuracy": r.Pairwise.Accuracy})
	}
	return Estimate{}, false
}

func lookup(name string, m map[string]Estimate) (Estimate, bool) {
	e, ok := m[name]
	return e, ok
}

// Min is a lower bound on a figure: of one metric, or of every metric
// when Metric is empty.
type Min struct {
	Metric string
	Figure string
	Value  float64
}

// ParseMin reads "figure=value" or "metric:figure=value".
func ParseMin(s string) (Min, error) {
	lhs, v, ok := strings.Cut(s, "=")
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if !ok || err != nil || math.IsNaN(x) {
		return Min{}, fmt.Errorf("%q: want FIGURE=VALUE or METRIC:FIGURE=VALUE, e.g. auc=0.8 or faithfulness:auc=0.8", s)
	}
	m := Min{Value: x, Figure: strings.TrimSpace(lhs)}
	if a, b, ok := strings.Cut(m.Figure, ":"); ok {
		m.Metric, m.Figure = strings.TrimSpace(a), strings.TrimSpace(b)
	}
	// Every figure lies in [-1, 1]; AUC and the accuracies in [0, 1]. A
	// minimum outside can never be met (or never be missed).
	lo := -1.0
	switch m.Figure {
	case "auc", "balanced_accuracy", "best_balanced_accuracy", "pairwise_accuracy":
		lo = 0
	}
	if x > 1 || x < lo {
		return Min{}, fmt.Errorf("%q: %s lies between %g and 1: give a minimum in that range", s, m.Figure, lo)
	}
	return m, nil
}

// Check returns a description of every min the report falls below; an
// undefined figure falls below every min. It fails when a min names a
// figure the label kind does not have or a metric not in the report.
func (r *Report) Check(mins []Min) ([]string, error) {
	var below []string
	for _, mn := range mins {
		if !slices.Contains(Figures[r.Kind], mn.Figure) {
			return nil, fmt.Errorf("--min %s: %s labels have the figures %s", mn.Figure, r.Kind, strings.Join(Figures[r.Kind], ", "))
		}
		matched := false
		for _, mr := range r.Metrics {
			if mn.Metric != "" && mn.Metric != mr.Metric {
				continue
			}
			matched = true
			if mr.Declined != "" {
				return nil, fmt.Errorf("--min %s:%s=%g: the judge declined %s on every row (%s): no figure to hold to a minimum; drop it or use a judge that scores the metric",
					mr.Metric, mn.Figure, mn.Value, mr.Metric, mr.Declined)
			}
			e, _ := mr.Figure(mn.Figure)
			if !e.Defined() || e.Value < mn.Value {
				below = append(below, fmt.Sprintf("%s %s %s < min %g", mr.Metric, mn.Figure, fmtFig(e.Value), mn.Value))
			}
		}
		if !matched {
			return nil, fmt.Errorf("--min %s:%s: metric %q was not judged", mn.Metric, mn.Figure, mn.Metric)
		}
	}
	return below, nil
}

func fmtFig(x float64) string { return report.FormatScore(results.Score(x)) }
