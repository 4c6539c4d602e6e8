package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/atomicfile"
	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/metrics"
)

// MarshalJSON writes NaN as null.
func (s Score) MarshalJSON() ([]byte, error) {
	f := float64(s)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// UnmarshalJSON reads null as NaN.
func (s *Score) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*s = NaN()
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Bare, so that the decoder adds the field's path.
			return &json.UnmarshalTypeError{Value: te.Value, Type: reflect.TypeFor[Score]()}
		}
		return fmt.Errorf("score: %w", err)
	}
	*s = Score(f)
	return nil
}

// ErrSchema is wrapped by Parse when the file is not raggate.results/v1.
var ErrSchema = errors.New("unsupported results schema")

// ErrInvalid is wrapped by Parse when the file is not valid JSON of the
// results format (bad syntax, wrong types, missing or duplicate ids).
var ErrInvalid = errors.New("invalid results file")

// ReadOptions says what a read keeps of the samples' texts (response,
// retrieved contexts, evidence), and of the samples.
type ReadOptions struct {
	// Texts selects the samples whose texts are kept; nil drops them all,
	// as a comparison needs only the scores.
	Texts func(id string) bool
	// Only keeps only the samples Texts selects (none when nil), texts
	// included, and drops the others whole as they are read: memory holds
	// the samples selected, never the others (the HTML report's second
	// pass reads back the few it lists). The file's checks (duplicate or
	// missing ids, scores, evidence) apply to the samples kept; the header
	// is read whole as always. ReadTable ignores it.
	Only bool
}

// AllTexts keeps the texts of every sample (ReadOptions.Texts).
func AllTexts(string) bool { return true }

// ScoresOnly reads no texts.
var ScoresOnly = ReadOptions{}

// Parse decodes a results file, texts included, and checks its schema
// version.
func Parse(data []byte) (*File, error) {
	return ParseWith(data, ReadOptions{Texts: AllTexts})
}

// ParseWith decodes a results file keeping the texts o selects.
func ParseWith(data []byte, o ReadOptions) (*File, error) {
	return decode(bytes.NewReader(data), o, func() ([]byte, error) { return data, nil })
}

// parseWhole decodes a whole results file at once; decode calls it to word
// the error when the stream is not a valid results file.
func parseWhole(data []byte) (*File, error) {
	data = bytes.TrimPrefix(data, bom)
	var probe struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: not a raggate results file: %w", ErrInvalid, jsonErrorPosition(data, err))
	}
	if err := checkSchema(probe.Schema); err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		var pe *time.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, createdAtError(data, pe))
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, wordTypeError(data, err))
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalid, jsonErrorPosition(data, err))
	}
	if err := checkFile(&f); err != nil {
		return nil, err
	}
	return &f, nil
}

// checkSchema checks the schema version (nil when the file has none).
func checkSchema(schema *string) error {
	if schema == nil {
		return fmt.Errorf("%w: no \"schema\" field; expected %q (was this file written by `gate run`?)", ErrSchema, Schema)
	}
	if *schema != Schema {
		return fmt.Errorf("%w %q: this gate reads %q; re-run `gate run` with this version of raggate or use the raggate version that wrote it", ErrSchema, *schema, Schema)
	}
	return nil
}

// checkFile checks that every sample has a unique id and that scores are
// in range, and makes equal reasons share their bytes.
func checkFile(f *File) error {
	shareReasons(f.Samples)
	if err := checkHeader(f); err != nil {
		return err
	}
	seen := make(map[string]bool, len(f.Samples))
	for i, s := range f.Samples {
		if seen[s.ID] {
			return fmt.Errorf("%w: duplicate sample id %q", ErrInvalid, s.ID)
		}
		seen[s.ID] = true
		if err := checkSample(f, i, &f.Samples[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkHeader checks what the file says outside its samples.
func checkHeader(f *File) error {
	for _, t := range []struct {
		name string
		v    float64
	}{{"temperature", f.Judge.Temperature}, {"sample_temperature", f.Judge.SampleTemperature}} {
		// A judge's temperature is 0 to 2 (OpenAI's range): anything else
		// was not written by a run.
		if math.IsNaN(t.v) || t.v < 0 || t.v > 2 {
			return fmt.Errorf("%w: judge.%s %v is outside [0, 2] (was the file edited by hand, or written by another tool?)", ErrInvalid, t.name, t.v)
		}
	}
	return nil
}

// checkSample checks sample i of f on its own: an id, scores in range,
// well-formed evidence (uniqueness of ids is the caller's).
func checkSample(f *File, i int, s *Sample) error {
	if s.ID == "" {
		return fmt.Errorf("%w: samples[%d] has no id", ErrInvalid, i)
	}
	if err := checkScores(f, s); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := checkEvidence(s); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// checkEvidence checks the evidence a read kept: verdicts are 0 or 1, and
// a list's marker ({"more": N}) is its last item, N at least 1, with
// nothing else.
func checkEvidence(s *Sample) error {
	for _, m := range sortedKeys(s.Evidence) {
		items := s.Evidence[m]
		for j, e := range items {
			switch {
			case e.More < 0:
				return fmt.Errorf("sample %q: evidence of %s, item %d: more %d; a marker says how many items were left out, at least 1", s.ID, m, j+1, e.More)
			case e.More > 0 && (e.Text != "" || e.Reason != "" || e.From != "" || e.Verdict != 0):
				return fmt.Errorf("sample %q: evidence of %s, item %d: a marker ({\"more\": %d}) holds nothing else; an item with text has no more", s.ID, m, j+1, e.More)
			case e.More > 0 && j != len(items)-1:
				return fmt.Errorf("sample %q: evidence of %s, item %d: the marker ({\"more\": %d}) ends the list", s.ID, m, j+1, e.More)
			case e.More == 0 && e.Verdict != 0 && e.Verdict != 1:
				return fmt.Errorf("sample %q: evidence of %s, item %d: verdict %d; a verdict is 1 (supported, useful) or 0", s.ID, m, j+1, e.Verdict)
			}
		}
	}
	return nil
}

// checkScores checks that every score and run of a sample is null or in
// its metric's range ([0, 1] for metrics outside the catalogue and the
// file's user-defined metrics; any finite number for numeric ones).
func checkScores(f *File, s *Sample) error {
	for _, m := range sortedKeys(s.Scores) {
		if err := checkScore(f, s.ID, m, s.Scores[m], ""); err != nil {
			return err
		}
	}
	for _, m := range sortedKeys(s.Runs) {
		for j, v := range s.Runs[m] {
			if err := checkScore(f, s.ID, m, v, fmt.Sprintf(" (run %d)", j+1)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkScore(f *File, id, m string, v Score, run string) error {
	if v.IsNaN() {
		return nil
	}
	lo, hi := 0.0, 1.0
	if cm, ok := f.Metric(m); ok {
		lo, hi = cm.ScoreRange()
	}
	if x := v.Value(); x < lo-rangeSlack || x > hi+rangeSlack {
		return fmt.Errorf("sample %q: %s score %v%s is outside [%v, %v]; scores are null or in the metric's range (was the file edited by hand, or written by another tool?)",
			id, m, x, run, lo, hi)
	} else if math.Abs(x) > metrics.MaxNumeric {
		return fmt.Errorf("sample %q: %s score %v%s is too large: numeric scores are at most %g in size, so that their sums stay finite (was the file edited by hand, or written by another tool?)",
			id, m, x, run, metrics.MaxNumeric)
	}
	return nil
}

// rangeSlack absorbs floating-point rounding at the ends of a range (a
// cosine of 1.0000000000000002).
const rangeSlack = 1e-9

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// shareReasons makes equal reasons share their bytes: metrics that share a
// judge step give the same reason, and data reasons ("missing field
// reference") repeat over the samples.
func shareReasons(samples []Sample) {
	shared := map[string]string{}
	share := func(m map[string]string) {
		for k, v := range m {
			if p, ok := shared[v]; ok {
				m[k] = p
			} else {
				shared[v] = v
			}
		}
	}
	for i := range samples {
		share(samples[i].Reasons)
		share(samples[i].Undefined)
	}
}

// Read reads and parses a results file, texts included; errors name the
// path.
func Read(path string) (*File, error) {
	return ReadWith(path, ReadOptions{Texts: AllTexts})
}

// ReadWith reads a results file keeping the texts o selects.
func ReadWith(path string, o ReadOptions) (*File, error) {
	file, err := inputfile.Open(path, inputfile.ResultsLimit())
	if err != nil {
		return nil, err
	}
	defer file.Close()
	f, err := decode(file, o, func() ([]byte, error) { return inputfile.ReadFile(path, inputfile.ResultsLimit()) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Marshal encodes the file as indented JSON with a trailing newline.
func Marshal(f *File) ([]byte, error) {
	var b bytes.Buffer
	if err := Encode(&b, f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write encodes f and writes it atomically to path. The samples are
// encoded one at a time, so memory never holds the whole encoded file.
func Write(path string, f *File) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := Encode(bw, f); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// samplesNull is how MarshalIndent writes a file without samples; Encode
// writes the samples in its place.
const samplesNull = "\n  \"samples\": null"

// Encode writes f as Marshal does, encoding one sample at a time.
func Encode(w io.Writer, f *File) error {
	if f.Schema == "" {
		f.Schema = Schema
	}
	rest := *f
	rest.Samples = nil
	b, err := json.MarshalIndent(&rest, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	i := bytes.Index(b, []byte(samplesNull))
	if i < 0 {
		return fmt.Errorf("encode results: no samples field")
	}
	head, tail := b[:i+len(samplesNull)-len("null")], b[i+len(samplesNull):]
	if _, err := w.Write(head); err != nil {
		return err
	}
	if f.OnDisk() {
		err = encodeSource(w, f.source, f.texts)
	} else {
		err = encodeSamples(w, f.Samples, f.texts)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(append(tail, '\n'))
	return err
}

// encodeSamples writes the samples array as MarshalIndent would inside a
// file, with the texts of source for the samples that hold none.
func encodeSamples(w io.Writer, samples []Sample, source TextSource) error {
	if samples == nil {
		_, err := io.WriteString(w, "null")
		return err
	}
	sep := "[\n    "
	for i := range samples {
		s, err := withTexts(&samples[i], source)
		if err != nil {
			return fmt.Errorf("encode results: sample %s: %w", samples[i].ID, err)
		}
		b, err := json.MarshalIndent(s, "    ", "  ")
		if err != nil {
			return fmt.Errorf("encode results: sample %s: %w", samples[i].ID, err)
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		sep = ",\n    "
	}
	end := "\n  ]"
	if len(samples) == 0 {
		end = "[]"
	}
	_, err := io.WriteString(w, end)
	return err
}

// encodeSource is encodeSamples for samples on disk.
func encodeSource(w io.Writer, src SampleSource, source TextSource) error {
	sep := "[\n    "
	n := src.Len()
	for i := range n {
		smp, err := src.Sample(i)
		if err != nil {
			return fmt.Errorf("encode results: %w", err)
		}
		s, err := withTexts(&smp, source)
		if err != nil {
			return fmt.Errorf("encode results: sample %s: %w", smp.ID, err)
		}
		b, err := json.MarshalIndent(s, "    ", "  ")
		if err != nil {
			return fmt.Errorf("encode results: sample %s: %w", smp.ID, err)
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		sep = ",\n    "
	}
	end := "\n  ]"
	if n == 0 {
		end = "[]"
	}
	_, err := io.WriteString(w, end)
	return err
}

// WriteFileAtomic writes data to path atomically (see atomicfile.WriteFile).
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return atomicfile.WriteFile(path, data, perm)
}

// createdAtError words a created_at that is not a time in RFC 3339
// format, with its line.
func createdAtError(data []byte, pe *time.ParseError) error {
	at := ""
	if i := bytes.Index(data, []byte(`"created_at"`)); i >= 0 {
		line, _ := lineCol(data, int64(i))
		at = fmt.Sprintf("line %d: ", line)
	}
	return fmt.Errorf("%screated_at: %q is not a time in RFC 3339 format, such as 2024-05-01T12:00:00Z (as gate run writes it)", at, strings.Trim(pe.Value, `"`))
}

// jsonErrorPosition adds line:col to JSON syntax and type errors.
func jsonErrorPosition(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offset counts the offending byte
		if off < 0 {
			off = 0
		}
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err
	}
	line, col := lineCol(data, off)
	return fmt.Errorf("line %d:%d: %w", line, col, err)
}
