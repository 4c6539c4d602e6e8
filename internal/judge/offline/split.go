package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end with a period that does not end a sentence. Lowercase,
// without the period. Words with an inner period ("e.g", "u.s") and single
// letters (initials) are handled separately.
var abbreviations = set(`
mr mrs ms mx dr prof st mt ft gen sen rep gov pres capt lt col sgt rev hon fr
no nos fig figs vs approx cf ed eds vol vols pp ch art sec
jan feb mar apr jun jul aug sep sept oct nov dec
`)

// verbs are verb-like words for clause detection: auxiliaries, modals and
// common verbs.
var verbs = set(`
am is are was were be been being has have had having do does did done
can could will would shall should may might must
say says said make makes made go goes went gone take takes took taken get gets got gotten
give gives gave given include includes provide provides require requires allow allows
need needs use uses become becomes became remain remains show shows lead leads led
find finds found know knows knew known think thinks thought see sees saw seen
come comes came keep keeps kept hold holds held pay pays paid buy buys bought sell sells sold
mean means meant seem seems contain contains help helps offer offers cause causes
affect affects increase increases reduce reduces depend depends run runs ran
build builds built grow grows grew grown lose loses lost win wins won
`)

var subjectPronouns = set("i you he she it we they")

// closers are closing quotes and brackets that may follow a sentence terminator.
const closers = "\"'\u201d\u2019)]\u00bb"

func isTerminator(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\u2026' }

// normalizeText makes text valid UTF-8 with \n line ends.
func normalizeText(text string) string {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if strings.Contains(text, "\r") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	return text
}

// stripMarker removes list bullets, numbered-item markers and block quotes
// from the start of a trimmed line.
func stripMarker(line string) string {
	for {
		line = strings.TrimSpace(line)
		rest, ok := cutMarker(line)
		if !ok {
			return line
		}
		line = rest
	}
}

func cutMarker(line string) (string, bool) {
	atBoundary := func(rest string) (string, bool) {
		if rest == "" {
			return "", true
		}
		r, _ := utf8.DecodeRuneInString(rest)
		if unicode.IsSpace(r) {
			return rest, true
		}
		return "", false
	}
	if line == "" {
		return "", false
	}
	r, size := utf8.DecodeRuneInString(line)
	if strings.ContainsRune("-*+>\u2022\u25e6\u25aa\u2023\u00b7\u2013\u2014\u25cf\u25cb", r) {
		return atBoundary(line[size:])
	}
	// "(1) " or "(a) "
	if r == '(' {
		if i := strings.IndexByte(line, ')'); i >= 2 && i <= 4 && isMarkerLabel(line[1:i]) {
			return atBoundary(line[i+1:])
		}
		return "", false
	}
	// "1. ", "12) ", "a) "
	i := 0
	for i < len(line) && i < 3 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == 0 && len(line) >= 2 && line[0] >= 'a' && line[0] <= 'z' && line[1] == ')' {
		return atBoundary(line[2:])
	}
	if i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') {
		if i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9' {
			return "", false // "3.5"
		}
		return atBoundary(line[i+1:])
	}
	return "", false
}

func isMarkerLabel(s string) bool {
	if s == "" {
		return false
	}
	if len(s) == 1 && s[0] >= 'a' && s[0] <= 'z' {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// splitLine splits one line (without markers) into trimmed sentences.
func splitLine(line string) []string {
	r := []rune(line)
	n := len(r)
	var out []string
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(string(r[start:end])); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < n; i++ {
		if !isTerminator(r[i]) {
			continue
		}
		j := i
		for j < n && isTerminator(r[j]) {
			j++
		}
		single := j == i+1 && r[i] == '.'
		for j < n && strings.ContainsRune(closers, r[j]) {
			j++
		}
		if j >= n {
			break
		}
		switch {
		case unicode.IsSpace(r[j]):
			k := j
			for k < n && unicode.IsSpace(r[k]) {
				k++
			}
			if k >= n {
				i = j - 1
				continue
			}
			if unicode.IsLower(r[k]) {
				i = j - 1
				continue
			}
			if single {
				switch isAbbreviation(r[start:i]) {
				case abbrTitle:
					continue
				case abbrDotted:
					if !sentenceStarters[strings.ToLower(nextWord(r[k:]))] {
						continue
					}
				}
			}
			emit(j)
			i = j - 1
		case single && j == i+1 && unicode.IsUpper(r[j]) && i > 0 && unicode.IsLower(r[i-1]) &&
			j+1 < n && unicode.IsLower(r[j+1]) && isAbbreviation(r[start:i]) == abbrNone:
			// Run-on sentences without a space: "stuff.Most items".
			emit(j)
			i = j - 1
		default:
			i = j - 1
		}
	}
	emit(n)
	return out
}

// maxAbbreviation bounds the length of an abbreviation, and the work of
// looking back for one.
const maxAbbreviation = 24

// Kinds of word before a period.
const (
	abbrNone   = iota
	abbrTitle  // "Dr", "No", "approx": never ends a sentence
	abbrDotted // "U.S", "e.g", an initial: ends one only before a sentence starter
)

// sentenceStarters are words that begin a sentence far more often than
// they follow "U.S." or an initial inside one.
var sentenceStarters = set(`
the it its this that these those they there their we our he his she her i you
in however but if when then on at for as after since although while
`)

// isAbbreviation classifies the word that ends text (right before a period).
func isAbbreviation(text []rune) int {
	k := len(text)
	for k > 0 && !unicode.IsSpace(text[k-1]) {
		k--
		if len(text)-k > maxAbbreviation {
			return abbrNone
		}
	}
	w := strings.TrimLeft(string(text[k:]), "\"'([{\u201c\u2018")
	if w == "" {
		return abbrNone
	}
	if strings.Contains(w, ".") {
		return abbrDotted // "U.S", "e.g", "i.e", "a.m"
	}
	if utf8.RuneCountInString(w) == 1 {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsLetter(r) {
			return abbrDotted // an initial
		}
		return abbrNone
	}
	if abbreviations[strings.ToLower(w)] {
		return abbrTitle
	}
	return abbrNone
}

// nextWord returns the leading run of letters of r.
func nextWord(r []rune) string {
	k := 0
	for k < len(r) && unicode.IsLetter(r[k]) {
		k++
	}
	return string(r[:k])
}

// sentences splits evidence into sentences: lines, markers removed, then
// sentence boundaries. Nothing else is dropped.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(normalizeText(text), "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "#")
		out = append(out, splitLine(stripMarker(line))...)
	}
	return out
}

// emphasis removes markdown bold markers.
var emphasis = strings.NewReplacer("**", "", "__", "")

// splitStatements is the statements step (see the package doc).
func splitStatements(text string) []string {
	out := splitUnits(text, true)
	if len(out) == 0 {
		// Only an empty text has no statements: a text of questions or
		// of words without content is kept whole.
		whole := strings.Join(strings.Fields(strings.ToValidUTF8(emphasis.Replace(normalizeText(text)), "\uFFFD")), " ")
		if s := finishStatement(whole); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// splitUnits splits text into sentences, and each sentence into clauses
// when clauses is set (see the package doc).
func splitUnits(text string, clauses bool) []string {
	out := []string{}
	seen := map[string]bool{}
	lines := strings.Split(normalizeText(text), "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue // markdown heading
		}
		if tableSeparator(line) || (strings.HasPrefix(line, "|") && i+1 < len(lines) && tableSeparator(strings.TrimSpace(lines[i+1]))) {
			continue // a table's separator row, or its header row above it
		}
		line = emphasis.Replace(line)
		for _, s := range splitLine(stripMarker(line)) {
			s = dropHeading(s)
			if last := lastRune(strings.TrimRight(s, closers)); last == '?' || last == ':' {
				continue
			}
			parts := []string{s}
			if clauses {
				parts = splitClauses(s)
			}
			for _, c := range parts {
				c = finishStatement(c)
				if c == "" || !hasContent(c) {
					continue
				}
				key := strings.ToLower(c)
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// tableSeparator reports whether line is the separator row of a markdown
// table ("|---|:--:|", "--- | ---"): pipes, dashes, colons and spaces only,
// with a pipe and three dashes.
func tableSeparator(line string) bool {
	if !strings.Contains(line, "|") || !strings.Contains(line, "---") {
		return false
	}
	return strings.Trim(line, "|-: \t") == ""
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// dropHeading removes a short heading before a colon ("Influence on other
// countries: The ruling can ...") when the heading has no verb and the rest
// is a clause.
func dropHeading(s string) string {
	i := strings.Index(s, ": ")
	if i <= 0 {
		return s
	}
	head, rest := tokenize(s[:i]), strings.TrimSpace(s[i+2:])
	if len(head) > 8 || hasVerb(head) || !clauseLike(rest) {
		return s
	}
	return capitalize(rest)
}

// coordinators are the clause boundaries of a long sentence.
var coordinators = []string{"; ", ", and ", ", but ", ", yet ", ", while ", ", whereas "}

// splitClauses splits a sentence at coordinators when both sides are
// clauses (see clauseLike; the right side is the rest of the sentence); the
// coordinator itself is dropped. Each stretch between coordinators is
// tokenised once, so the work is linear in the sentence.
func splitClauses(s string) []string {
	type cut struct{ start, end int }
	var cuts []cut
	for i := 0; i < len(s); i++ {
		for _, c := range coordinators {
			if hasPrefixASCIIFold(s[i:], c) {
				cuts = append(cuts, cut{i, i + len(c)})
				i += len(c) - 1
				break
			}
		}
	}
	if len(cuts) == 0 {
		return []string{s}
	}
	// seg[k] is the stretch before cut k; seg[len(cuts)] the one after the last.
	seg := make([]clauseInfo, len(cuts)+1)
	from := 0
	for k, c := range cuts {
		seg[k] = clauseInfoOf(s[from:c.start])
		from = c.end
	}
	seg[len(cuts)] = clauseInfoOf(s[from:])
	// rest[k] describes everything after cut k-1: seg[k] + ... + seg[last].
	rest := make([]clauseInfo, len(seg)+1)
	for k := len(seg) - 1; k >= 0; k-- {
		rest[k] = seg[k].plus(rest[k+1])
	}
	var parts []string
	last := 0
	var left clauseInfo
	for k, c := range cuts {
		left = left.plus(seg[k])
		if left.ok() && rest[k+1].ok() {
			parts = append(parts, s[last:c.start])
			last = c.end
			left = clauseInfo{}
		}
	}
	parts = append(parts, s[last:])
	for i := 1; i < len(parts); i++ {
		parts[i] = capitalize(strings.TrimSpace(parts[i]))
	}
	return parts
}

// clauseInfo is what clauseLike needs to know about a stretch of text.
type clauseInfo struct {
	words         int
	content, verb bool
}

func clauseInfoOf(s string) clauseInfo {
	toks := tokenize(s)
	ci := clauseInfo{words: len(toks), verb: hasVerb(toks)}
	for _, t := range toks {
		if isContent(t) {
			ci.content = true
			break
		}
	}
	return ci
}

func (a clauseInfo) plus(b clauseInfo) clauseInfo {
	return clauseInfo{words: a.words + b.words, content: a.content || b.content, verb: a.verb || b.verb}
}

// ok reports whether the stretch is a clause: at least three words, a
// content word and a verb-like word.
func (a clauseInfo) ok() bool { return a.words >= 3 && a.content && a.verb }

// hasPrefixASCIIFold reports whether s starts with the lowercase ASCII
// prefix, ignoring ASCII case (byte offsets in s stay valid).
func hasPrefixASCIIFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// clauseLike reports whether s has at least three words, a content word and
// a verb-like word.
func clauseLike(s string) bool { return clauseInfoOf(s).ok() }

// hasVerb reports whether toks contain a verb-like word: an auxiliary, modal
// or common verb, a negation, or the word after a subject pronoun. Words in
// -ed are not counted: too many are participles ("disparities faced by").
func hasVerb(toks []token) bool {
	for i, t := range toks {
		if verbs[t.word] || t.neg {
			return true
		}
		if i > 0 && subjectPronouns[toks[i-1].word] && t.word != "" {
			return true
		}
	}
	return false
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if unicode.IsLower(r) {
		return string(unicode.ToUpper(r)) + s[size:]
	}
	return s
}

// finishStatement trims a statement, drops trailing commas, semicolons and
// colons, and ends it with a period unless it ends with . ! or ?.
func finishStatement(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ",;: \t")
	if s == "" {
		return ""
	}
	if !isTerminator(lastRune(strings.TrimRight(s, closers))) {
		s += "."
	}
	return s
}
