package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// decode reads a results file from r one sample at a time, so memory holds
// the decoded samples but never the whole encoded file. When the stream is
// not a valid results file, reread supplies the whole file and the
// whole-file parser words the error (schema, line:col), so both paths fail
// with the same messages.
func decode(r io.Reader, o ReadOptions, reread func() ([]byte, error)) (*File, error) {
	// A UTF-8 byte order mark (an editor's) is read past.
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(bom)); err == nil && bytes.Equal(b, bom) {
		_, _ = br.Discard(len(bom))
	}
	f, schema, err := stream(br, o)
	if err != nil {
		return nil, streamError(err, reread)
	}
	if err := checkSchema(schema); err != nil {
		return nil, err
	}
	if err := checkFile(f); err != nil {
		return nil, err
	}
	return f, nil
}

// streamError words err, the error of a stream that is not a valid
// results file: reread supplies the whole file and the whole-file parser
// words the error (schema, line:col).
func streamError(err error, reread func() ([]byte, error)) error {
	data, rerr := reread()
	if rerr != nil {
		return rerr
	}
	data = bytes.TrimPrefix(data, bom)
	_, werr := parseWhole(data)
	var se *sampleError
	if errors.As(err, &se) && !errors.Is(werr, ErrSchema) {
		if located := se.locate(data); located != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, located)
		}
	}
	if werr != nil {
		return werr
	}
	return fmt.Errorf("%w: %w", ErrInvalid, err)
}

// bom is the UTF-8 byte order mark.
var bom = []byte("\ufeff")

// stream decodes the top-level object: the samples element by element,
// every other key as json.Unmarshal would (case-insensitive names, unknown
// keys ignored, the last duplicate wins). It also returns the schema
// (nil when the file has none). The texts of the samples o.Texts rejects
// (all when it is nil) are dropped as they are read, and with o.Only the
// samples themselves.
func stream(r io.Reader, o ReadOptions) (*File, *string, error) {
	var samples []Sample
	f, schema, err := streamTo(r, func(dec *json.Decoder, _ []byte) error {
		var err error
		samples, err = streamSamples(dec, o)
		return err
	})
	if f != nil {
		f.Samples = samples
	}
	return f, schema, err
}

// streamTo decodes the top-level object as stream does, handing the
// samples value to samples (which must consume it from dec) with the
// keys read before it (an object lacking its closing brace).
func streamTo(r io.Reader, samples func(dec *json.Decoder, before []byte) error) (*File, *string, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, nil, err
	}
	var rest bytes.Buffer
	rest.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		if strings.EqualFold(key, "samples") {
			if err := samples(dec, rest.Bytes()); err != nil {
				return nil, nil, err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		if rest.Len() > 1 {
			rest.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		rest.Write(k)
		rest.WriteByte(':')
		rest.Write(raw)
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("data after the top-level object")
	}
	rest.WriteByte('}')
	var probe struct {
		Schema *string `json:"schema"`
	}
	var f File
	if err := json.Unmarshal(rest.Bytes(), &probe); err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(rest.Bytes(), &f); err != nil {
		return nil, nil, err
	}
	return &f, probe.Schema, nil
}

// streamSamples decodes the samples value: null, or an array decoded one
// element at a time, keeping what o selects.
func streamSamples(dec *json.Decoder, o ReadOptions) ([]Sample, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("samples is not an array")
	}
	samples := []Sample{}
	for index := 0; dec.More(); index++ {
		var s Sample
		start := dec.InputOffset()
		if err := dec.Decode(&s); err != nil {
			return nil, &sampleError{index: index, start: start, err: err}
		}
		switch selected := o.Texts != nil && o.Texts(s.ID); {
		case selected:
		case o.Only:
			continue
		default:
			s.dropTexts()
		}
		samples = append(samples, s)
	}
	return samples, expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, tok)
	}
	return nil
}
