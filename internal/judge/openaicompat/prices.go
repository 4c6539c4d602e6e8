package openaicompat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/yamlcheck"
)

// Price is the list price of a model in US dollars per million tokens.
// Embedding models only have an input price.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok" yaml:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok" yaml:"output_per_mtok"`
}

// Prices maps model names to prices.
type Prices map[string]Price

// PricesAsOf dates DefaultPrices: OpenAI's standard (non-batch, uncached)
// list prices as published in March 2026.
const PricesAsOf = "2026-03"

// DefaultPrices returns a fresh copy of the built-in price table (see
// PricesAsOf). Override or extend it with LoadPrices.
func DefaultPrices() Prices {
	return Prices{
		"gpt-4o":                 {InputPerMTok: 2.50, OutputPerMTok: 10.00},
		"gpt-4o-mini":            {InputPerMTok: 0.15, OutputPerMTok: 0.60},
		"gpt-4.1":                {InputPerMTok: 2.00, OutputPerMTok: 8.00},
		"gpt-4.1-mini":           {InputPerMTok: 0.40, OutputPerMTok: 1.60},
		"gpt-4.1-nano":           {InputPerMTok: 0.10, OutputPerMTok: 0.40},
		"text-embedding-3-small": {InputPerMTok: 0.02},
		"text-embedding-3-large": {InputPerMTok: 0.13},
		"text-embedding-ada-002": {InputPerMTok: 0.10},
	}
}

// ParsePrices reads a price table in YAML or JSON, a map from model name to
// {input_per_mtok, output_per_mtok}, and returns DefaultPrices overridden
// and extended by it.
func ParsePrices(b []byte) (Prices, error) {
	var file map[string]Price
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&file); err != nil && err != io.EOF {
		return nil, fmt.Errorf("price table: %w", err)
	}
	if line, err := yamlcheck.ExtraDocument(dec); err != nil {
		return nil, fmt.Errorf("price table: %w", err)
	} else if line > 0 {
		return nil, &extraDocError{line}
	}
	p := DefaultPrices()
	for model, price := range file {
		if price.InputPerMTok < 0 || price.OutputPerMTok < 0 {
			return nil, fmt.Errorf("price table: %s: negative price", model)
		}
		p[strings.ToLower(strings.TrimSpace(model))] = price
	}
	return p, nil
}

// LoadPrices reads a price table file (see ParsePrices).
func LoadPrices(path string) (Prices, error) {
	b, err := inputfile.ReadFile(path, inputfile.ConfigLimit())
	if err != nil {
		return nil, fmt.Errorf("price table: %w", err)
	}
	p, err := ParsePrices(b)
	var extra *extraDocError
	if errors.As(err, &extra) {
		return nil, fmt.Errorf("%s:%d: %w", path, extra.line, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Lookup returns the price of model: an exact (case-insensitive) match,
// else the longest name that model extends with "-" (a dated snapshot such
// as gpt-4o-mini-2024-07-18 gets the gpt-4o-mini price).
func (p Prices) Lookup(model string) (Price, bool) {
	model = strings.ToLower(strings.TrimSpace(model))
	if pr, ok := p[model]; ok {
		return pr, true
	}
	best, found := "", false
	for name := range p {
		if strings.HasPrefix(model, name+"-") && len(name) > len(best) {
			best, found = name, true
		}
	}
	if !found {
		return Price{}, false
	}
	return p[best], true
}

// EstimateCost returns the cost in US dollars of usage u: prompt and
// completion tokens at the chat model's price, embedding tokens at the
// embedding model's. A model missing from the table costs 0. Cached calls
// cost nothing (their tokens are not in u).
func EstimateCost(model, embModel string, u judge.Usage, p Prices) float64 {
	var cost float64
	if pr, ok := p.Lookup(model); ok {
		cost += float64(u.PromptTokens)*pr.InputPerMTok/1e6 + float64(u.CompletionTokens)*pr.OutputPerMTok/1e6
	}
	if pr, ok := p.Lookup(embModel); ok {
		cost += float64(u.EmbeddingTokens) * pr.InputPerMTok / 1e6
	}
	return cost
}

// extraDocError is a price table with a second YAML document, which would
// be silently ignored.
type extraDocError struct{ line int }

func (e *extraDocError) Error() string {
	return "a second YAML document; a price table holds one (remove the \"---\" line and what follows, or merge it into the first)"
}
