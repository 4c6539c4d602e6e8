package docgen

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ActionTables renders the inputs and the outputs of an action.yml as two
// markdown tables, in the order the file declares them: each input with its
// default ("required" for a required input) and description, each output
// with its description.
func ActionTables(actionYML []byte) (inputs, outputs string, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(actionYML, &doc); err != nil {
		return "", "", fmt.Errorf("action.yml: %w", err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return "", "", errors.New("action.yml: not a mapping")
	}
	in, out := section(doc.Content[0], "inputs"), section(doc.Content[0], "outputs")
	if in == nil || out == nil {
		return "", "", errors.New("action.yml: no inputs or no outputs")
	}
	var b strings.Builder
	b.WriteString("| input | default | description |\n|---|---|---|\n")
	for i := 0; i+1 < len(in.Content); i += 2 {
		var v struct {
			Description string  `yaml:"description"`
			Required    bool    `yaml:"required"`
			Default     *string `yaml:"default"`
		}
		if err := in.Content[i+1].Decode(&v); err != nil {
			return "", "", fmt.Errorf("action.yml: input %s: %w", in.Content[i].Value, err)
		}
		def := ""
		switch {
		case v.Required:
			def = "required"
		case v.Default != nil && *v.Default != "":
			def = "`" + *v.Default + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", in.Content[i].Value, def, cell(v.Description))
	}
	inputs = b.String()
	b.Reset()
	b.WriteString("| output | description |\n|---|---|\n")
	for i := 0; i+1 < len(out.Content); i += 2 {
		var v struct {
			Description string `yaml:"description"`
		}
		if err := out.Content[i+1].Decode(&v); err != nil {
			return "", "", fmt.Errorf("action.yml: output %s: %w", out.Content[i].Value, err)
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", out.Content[i].Value, cell(v.Description))
	}
	return inputs, b.String(), nil
}

// section is the mapping under key of the mapping m, or nil.
func section(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.MappingNode {
			return m.Content[i+1]
		}
	}
	return nil
}
