package agree

import (
	"math"
	"strings"
	"testing"
)

func rowsOf(labels []string, scores []float64, metric string) []Row {
	rows := make([]Row, len(labels))
	for i := range labels {
		rows[i] = Row{ID: string(rune('a' + i)), Scores: map[string]float64{metric: scores[i]}, Metadata: map[string]string{"l": labels[i]}}
	}
	return rows
}

func TestMeasurePicksTheLabelKind(t *testing.T) {
	for _, tt := range []struct {
		labels   []string
		positive []string
		pairBy   string
		want     Kind
	}{
		{[]string{"1", "0", "true"}, nil, "", KindBinary},
		{[]string{"1", "3", "5"}, nil, "", KindGraded},
		{[]string{"Yes", "No", "yes"}, []string{"YES"}, "", KindBinary},
		{[]string{"1", "0"}, nil, "l", KindPairwise},
	} {
		rep, err := Measure(rowsOf(tt.labels, make([]float64, len(tt.labels)), "m"), nil, Spec{Label: "l", Positive: tt.positive, PairBy: tt.pairBy})
		if err != nil || rep.Kind != tt.want {
			t.Errorf("labels %v: kind %v (%v), want %v", tt.labels, rep, err, tt.want)
		}
	}
}

// A lower-is-better metric is turned so that agreement is positive, and
// its thresholds stay in its own units.
func TestMeasureLowerIsBetter(t *testing.T) {
	rows := rowsOf([]string{"Yes", "Yes", "No", "No"}, []float64{0.1, 0.2, 0.9, 0.3}, "noise")
	rep, err := Measure(rows, []Metric{{Name: "noise", LowerIsBetter: true}}, Spec{Label: "l", Positive: []string{"yes"}, Threshold: 0.5, Show: 5})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Metrics[0]
	// At 0.5, a score at or below predicts good: a, b, d; c is bad.
	if m.Direction != "lower" || m.Binary.AUC.Value != 1 || m.Binary.At.Confusion != (Confusion{TP: 2, FP: 1, TN: 1}) {
		t.Errorf("report %+v", m.Binary)
	}
	if th := m.Binary.Best.Threshold; th != 0.2 {
		t.Errorf("best threshold %v, want 0.2 (in the metric's units)", th)
	}
	// d (0.3, No) is the row furthest from its label; its score is shown as written.
	if len(m.Disagreements) == 0 || m.Disagreements[0].ID != "d" || m.Disagreements[0].Score != 0.3 || m.Disagreements[0].Label != "No" {
		t.Errorf("disagreements %+v", m.Disagreements)
	}
}

func TestMeasureSkipsUndefinedAndUnlabelled(t *testing.T) {
	rows := rowsOf([]string{"1", "0", "", "1"}, []float64{0.9, 0.1, 0.5, math.NaN()}, "m")
	rep, err := Measure(rows, []Metric{{Name: "m"}}, Spec{Label: "l", Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unlabelled != 1 || rep.Metrics[0].Undefined != 1 || rep.Metrics[0].Binary.N != 2 {
		t.Errorf("report %+v / %+v", rep, rep.Metrics[0])
	}
}

func TestMinCheck(t *testing.T) {
	rows := rowsOf([]string{"1", "0", "1", "0"}, []float64{0.9, 0.1, 0.4, 0.6}, "m")
	rep, err := Measure(rows, []Metric{{Name: "m"}}, Spec{Label: "l", Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// AUC: (0.9 beats both) + (0.4 beats 0.1) = 3/4.
	for _, tt := range []struct {
		min   string
		below bool
		err   string
	}{
		{"auc=0.7", false, ""},
		{"m:auc=0.8", true, ""},
		{"spearman=0.1", false, "binary labels have the figures"},
		{"other:auc=0.1", false, `metric "other" was not judged`},
	} {
		mn, err := ParseMin(tt.min)
		if err != nil {
			t.Fatal(err)
		}
		below, err := rep.Check([]Min{mn})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.min, err, tt.err)
			}
			continue
		}
		if err != nil || (len(below) > 0) != tt.below {
			t.Errorf("%s: below %v (%v), want below=%v", tt.min, below, err, tt.below)
		}
	}
	if _, err := ParseMin("auc"); err == nil {
		t.Error("ParseMin(auc) accepted")
	}
}
