package offline

import (
	"strings"
	"unicode"
)

// evasivePhrases mark a noncommittal response. They are matched after
// normalisation (see normalizePhrase): case, curly or missing apostrophes and
// punctuation do not matter, and a phrase matches whole words only.
var evasivePhrases = []string{
	"i don't know", "i do not know", "nobody knows", "no one knows",
	"i'm not sure", "i am not sure", "not sure",
	"i cannot", "i can't", "cannot answer", "can't answer", "cannot be answered",
	"cannot determine", "can't determine", "cannot say", "can't say", "cannot be determined",
	"unable to", "i am unable", "i'm unable",
	"no information", "not enough information", "insufficient information",
	"not enough context", "no relevant information",
	"it depends", "that depends",
	"the context does not", "the context doesn't", "the provided context does not",
	"the given context does not", "the text does not", "the documents do not",
	"not mentioned", "not specified", "not stated", "not provided",
	"does not provide", "doesn't provide", "does not mention", "doesn't mention",
	"no way to know", "hard to say", "difficult to say", "impossible to say",
	"i have no idea", "no idea",
	"i don't have", "i do not have", "as an ai",
}

// normalizedPhrases are evasivePhrases, normalised, padded with spaces.
var normalizedPhrases = func() []string {
	out := make([]string, len(evasivePhrases))
	for i, p := range evasivePhrases {
		out[i] = " " + normalizePhrase(p) + " "
	}
	return out
}()

// normalizePhrase lowercases s, deletes apostrophes (straight and curly) and
// turns every other run of non-letters/digits into one space.
func normalizePhrase(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		switch {
		case isApostrophe(r) || r == '\u2018' || r == '`' || r == '\u00b4':
			continue
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
			space = false
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// noncommittal reports whether a response is evasive: an evasive phrase in
// its first sentence, or anywhere in a response of at most two sentences.
func noncommittal(response string) bool {
	sents := sentences(response)
	if len(sents) == 0 {
		return false
	}
	text := sents[0]
	if len(sents) <= 2 {
		text = strings.Join(sents, " ")
	}
	norm := " " + normalizePhrase(text) + " "
	for _, p := range normalizedPhrases {
		if strings.Contains(norm, p) {
			return true
		}
	}
	return false
}
