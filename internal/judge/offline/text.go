package offline

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word or number of a text.
type token struct {
	// word is the lowercased word with apostrophes and clitics removed; it
	// is empty for a number.
	word string
	// num is the canonical form of a number ("1000", "3.5"); empty for a word.
	num string
	// weak marks a number that is too ambiguous to be required ("one").
	weak bool
	// neg marks a negation cue (not, no, never, n't, ...).
	neg bool
	// stop marks a stop word (see stopWords).
	stop bool
	// scale is the power of ten of a scale word ("million": 6), else 0.
	scale int8
	// clause numbers the stretches between punctuation marks (, ; : ( ) " . ! ? dashes);
	// a negation only reaches words of its own clause.
	clause int
	// name marks a word written with a capital that does not start a
	// sentence, line or list item ("Peabody" in "from Chevron and
	// Peabody"): a name the evidence should hold.
	name bool
	// capStart marks a capitalised word that starts a sentence, line or
	// list item: a name when the next word is one too ("Maria Berg").
	capStart bool
	// upper marks a word of two or more letters all in capitals ("US").
	upper bool
	// unit is the canonical unit of a number ("kwh", "kg", "%"), empty
	// when none follows it; a word token never has one.
	unit string
	// adjacent marks a token separated from the one before by nothing but
	// spaces or a hyphen ("15 kWh", "15-year", "15kWh").
	adjacent bool
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' || r == '\u02bc' }

// asciiWord and asciiClause classify the ASCII runes: part of a word
// (isWordRune), a clause mark (clauseMarks).
var asciiWord, asciiClause = func() (w, c [utf8.RuneSelf]bool) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		w[r] = unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
		c[r] = strings.ContainsRune(clauseMarks, r)
	}
	return w, c
}()

// isWordRune reports whether r can be part of a word.
func isWordRune(r rune) bool {
	if r >= 0 && r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// isClauseMark reports whether r ends a clause (clauseMarks).
func isClauseMark(r rune) bool {
	if r >= 0 && r < utf8.RuneSelf {
		return asciiClause[r]
	}
	return strings.ContainsRune(clauseMarks, r)
}

// runeAt decodes the rune of valid UTF-8 s at byte i.
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// tokenize splits s into words and numbers (see the package doc).
func tokenize(s string) []token {
	toks := make([]token, 0, len(s)/6+1)
	scanTokens(s, func(t token) bool {
		toks = append(toks, t)
		return true
	})
	return applyScales(toks)
}

// scanTokens calls yield with each token of s in order, before scale words
// are applied (see applyScales), until yield returns false.
func scanTokens(s string, yield func(token) bool) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	n := len(s)
	clause := 0
	start := true // at the start of a sentence, line or list item
	lastEnd := -1 // where the last number or word ended
	for i := 0; i < n; {
		c, size := runeAt(s, i)
		switch {
		case c == '[' && citation(s, i) > 0:
			// A citation marker of a RAG answer or of its sources ("[3]",
			// "[1, 4]", "[2-5]") is not a claim: its numbers are skipped.
			i += citation(s, i)
		case isDigit(c):
			var t token
			negative := minusBefore(s, i)
			from := i
			t, i = scanNumber(s, i)
			if negative && t.num != "" && t.num != "0" {
				t.num = "-" + t.num
			}
			t.adjacent = lastEnd >= 0 && strings.Trim(s[lastEnd:from], " -") == ""
			lastEnd = i
			t.clause = clause
			start = false
			if !yield(t) {
				return
			}
		case isCJK(c):
			// A run of Han, kana or Hangul: overlapping character bigrams
			// (a lone character is one token); a negation character ends
			// the bigrams before it and is a negation cue.
			j := i
			var run []rune
			flush := func() bool {
				if len(run) == 1 {
					return yield(token{word: string(run), clause: clause})
				}
				for k := 0; k+1 < len(run); k++ {
					if !yield(token{word: string(run[k : k+2]), clause: clause}) {
						return false
					}
				}
				return true
			}
			for j < n {
				r, sz := runeAt(s, j)
				if !isCJK(r) {
					break
				}
				j += sz
				if cjkNegations[r] {
					if !flush() || !yield(token{word: string(r), neg: true, clause: clause}) {
						return
					}
					run = run[:0]
					continue
				}
				run = append(run, r)
			}
			if !flush() {
				return
			}
			start = false
			i = j
		case isWordRune(c):
			j, apos := i+size, false
			for j < n {
				r, sz := runeAt(s, j)
				if isWordRune(r) && !isCJK(r) {
					j += sz
					continue
				}
				if isApostrophe(r) && j+sz < n {
					if next, _ := runeAt(s, j+sz); unicode.IsLetter(next) {
						j += sz
						apos = true
						continue
					}
				}
				break
			}
			t := wordToken(strings.ToLower(s[i:j]), apos)
			t.clause = clause
			t.name = !start && unicode.IsUpper(c)
			t.capStart = start && unicode.IsUpper(c)
			t.upper = allUpper(s[i:j])
			t.adjacent = lastEnd >= 0 && strings.Trim(s[lastEnd:i], " -") == ""
			lastEnd = j
			start = false
			if !yield(t) {
				return
			}
			i = j
		default:
			if isClauseMark(c) {
				clause++
			}
			if strings.ContainsRune(".!?:\n\u2022", c) {
				start = true
			}
			i += size
		}
	}
}

// minusBefore reports whether the number at s[i] has a minus sign right
// before it that is not a hyphen inside a word or range ("-5", "−5",
// "(-5)"; not "COVID-19" or "10-15").
func minusBefore(s string, i int) bool {
	r, sz := utf8.DecodeLastRuneInString(s[:i])
	if r != '-' && r != '\u2212' {
		return false
	}
	if i-sz == 0 {
		return true
	}
	p, _ := utf8.DecodeLastRuneInString(s[:i-sz])
	return !isWordRune(p) && p != '.' && p != ','
}

// isCJK reports whether r is Han, Hiragana, Katakana (with its prolonged
// sound mark) or Hangul: scripts written without spaces between words.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == '\u30fc'
}

// cjkNegations are the negation characters of Chinese (and of Japanese
// written in Han): not, have not, without, not yet.
var cjkNegations = map[rune]bool{'不': true, '没': true, '沒': true, '无': true, '無': true, '未': true}

// allUpper reports whether w has two or more letters, all upper-case.
func allUpper(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		}
	}
	return letters >= 2
}

// citation returns the length of the citation marker at s[i] (a '['):
// digits, separated by commas, spaces or dashes, then ']'; 0 when there is
// none. It reads at most 32 bytes.
func citation(s string, i int) int {
	digits := false
	for j := i + 1; j < len(s) && j < i+32; j++ {
		switch c := s[j]; {
		case isDigitByte(c):
			digits = true
		case c == ',' || c == ' ' || c == '-':
		case c == ']':
			if digits {
				return j + 1 - i
			}
			return 0
		default:
			return 0
		}
	}
	return 0
}

// clauseMarks end a clause for the reach of a negation.
const clauseMarks = ",;:()[]{}\"\u201c\u201d.!?\u2013\u2014"

// scanNumber reads the number starting at s[i] (an ASCII digit) and returns
// its token and the index after it. An alphanumeric run such as "co2" is not
// a number (it starts with a letter); "4g" or "3d" are words. s is valid
// UTF-8.
func scanNumber(s string, i int) (token, int) {
	n := len(s)
	j := i
	for j < n && isDigitByte(s[j]) {
		j++
	}
	// raw is the digits and point of s[i:j] without the thousands
	// separators, a decimal comma read as a point.
	raw := []byte(s[i:j])
	separators := false
	for j < n {
		// Thousands group: ",ddd" not followed by another digit.
		if s[j] == ',' && j+3 < n && isDigitByte(s[j+1]) && isDigitByte(s[j+2]) && isDigitByte(s[j+3]) &&
			(j+4 == n || !isDigitByte(s[j+4])) {
			raw = append(raw, s[j+1:j+4]...)
			j += 4
			separators = true
			continue
		}
		// Decimal comma: ",d" or ",dd" then a space, a letter, % or the
		// end ("13,5 kWh"), once, and not after thousands groups.
		if s[j] == ',' && !separators && j+1 < n && isDigitByte(s[j+1]) {
			k := j + 2
			if k < n && isDigitByte(s[k]) {
				k++
			}
			if k == n || s[k] == ' ' || s[k] == '%' || (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') {
				raw = append(append(raw, '.'), s[j+1:k]...)
				j = k
				separators = true
				break
			}
		}
		if s[j] == '.' && j+1 < n && isDigitByte(s[j+1]) {
			raw = append(raw, '.')
			j++
			for j < n && isDigitByte(s[j]) {
				raw = append(raw, s[j])
				j++
			}
			separators = true
			continue
		}
		break
	}
	num := canonicalNumber(string(raw))
	if j < n && s[j] == '%' {
		return token{num: num, unit: "%"}, j + 1
	}
	// Letters right after the digits: ordinal, decade, scale, unit or a
	// word ("401k" is a word: a k suffix is a thousand only after a
	// currency sign, "$15k").
	if j < n {
		if r, _ := runeAt(s, j); isWordRune(r) && !isDigit(r) && !isCJK(r) {
			k := j
			for k < n {
				r, sz := runeAt(s, k)
				if !isWordRune(r) || isCJK(r) {
					break
				}
				k += sz
			}
			suffix := strings.ToLower(s[j:k])
			currency := currencyBefore(s, i)
			switch {
			case suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th" || suffix == "s":
				return token{num: num}, k
			case suffix == "bn" || (currency && suffix == "b"):
				return token{num: shiftNumber(num, 9)}, k
			case currency && (suffix == "m" || suffix == "mn"):
				return token{num: shiftNumber(num, 6)}, k
			case currency && suffix == "k":
				return token{num: shiftNumber(num, 3)}, k
			case units[suffix] != "" && (k-j > 1 || separators):
				// "15kWh": the number, then the unit as the next token.
				return token{num: num}, j
			default:
				if !separators {
					return wordToken(strings.ToLower(s[i:k]), false), k
				}
				// "3.5ghz": the number, then the letters as a word.
				return token{num: num}, j
			}
		}
	}
	return token{num: num}, j
}

// currencyBefore reports whether a currency sign is right before s[i].
func currencyBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r == '$' || r == '\u20ac' || r == '\u00a3' || r == '\u00a5'
}

// units maps the unit words that may follow a number to a canonical unit:
// a number with a unit matches only the same unit, or a mention of the
// number without one.
var units = func() map[string]string {
	m := map[string]string{}
	for _, group := range []string{
		"% percent pct", "kwh", "mwh", "gwh", "twh", "wh", "kw", "mw", "gw", "w watt watts",
		"kj", "mj", "kcal calorie calories", "mg milligram milligrams", "g gram grams",
		"kg kgs kilo kilos kilogram kilograms", "lb lbs pound pounds", "oz ounce ounces",
		"t tonne tonnes ton tons", "mm millimeter millimeters millimetre millimetres",
		"cm centimeter centimeters centimetre centimetres", "m meter meters metre metres",
		"km kilometer kilometers kilometre kilometres", "mi mile miles", "ft foot feet",
		"inch inches", "yd yard yards", "ml milliliter milliliters millilitre millilitres",
		"l liter liters litre litres", "gal gallon gallons", "mph", "kph kmh",
		"hz hertz", "khz", "mhz", "ghz", "kb", "mb", "gb", "tb",
		"v volt volts", "kv", "mah", "ms millisecond milliseconds",
		"second seconds sec", "minute minutes min", "hour hours h hr hrs",
		"day days", "week weeks", "month months", "year years yr yrs",
		"celsius", "fahrenheit", "kelvin",
	} {
		f := strings.Fields(group)
		for _, w := range f {
			m[w] = f[0]
		}
	}
	return m
}()

// canonicalNumber normalises digits with at most one decimal point:
// leading zeros of the integer part and trailing zeros of the fraction go.
// Anything with more than one point (a version, a date) is kept as is.
func canonicalNumber(raw string) string {
	if strings.Count(raw, ".") > 1 {
		return raw
	}
	intPart, frac, _ := strings.Cut(raw, ".")
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		return intPart
	}
	return intPart + "." + frac
}

// shiftNumber multiplies a canonical number by 10^k (k >= 0).
func shiftNumber(num string, k int) string {
	if strings.Count(num, ".") > 1 {
		return num
	}
	intPart, frac, _ := strings.Cut(num, ".")
	if len(frac) <= k {
		frac += strings.Repeat("0", k-len(frac))
		return canonicalNumber(intPart + frac)
	}
	return canonicalNumber(intPart + frac[:k] + "." + frac[k:])
}

// scaleWords scale a number right before them ("1.5 million").
var scaleWords = map[string]int{"hundred": 2, "thousand": 3, "million": 6, "billion": 9, "trillion": 12}

// numberWords are number words read as numbers.
var numberWords = map[string]string{
	"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16",
	"seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
	"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
	"eighty": "80", "ninety": "90",
}

// applyScales folds scale words into the number before them; a lone
// "hundred" is 100 and other lone scale words are dropped (they are unit
// words, not content). A unit word right after a number (same clause)
// becomes the number's unit; "minus" before a number makes it negative;
// an upper-case stop word beside a number is content ("US 60").
func applyScales(toks []token) []token {
	out := toks[:0]
	for _, t := range toks {
		var prev *token
		if len(out) > 0 {
			prev = &out[len(out)-1]
		}
		if t.scale > 0 {
			if prev != nil && prev.num != "" && prev.unit == "" {
				prev.num = shiftNumber(prev.num, int(t.scale))
				prev.weak = false
				continue
			}
			if t.word == "hundred" {
				out = append(out, token{num: "100", clause: t.clause})
			}
			continue
		}
		if u := units[t.word]; u != "" && t.adjacent && prev != nil && prev.num != "" && prev.unit == "" {
			prev.unit = u
			continue
		}
		if t.num != "" && prev != nil && prev.word == "minus" && prev.clause == t.clause && !strings.HasPrefix(t.num, "-") && t.num != "0" {
			t.num = "-" + t.num
			out[len(out)-1] = t
			continue
		}
		out = append(out, t)
	}
	for i := range out {
		if t := &out[i]; t.stop && t.upper && ((i > 0 && out[i-1].num != "") || (i+1 < len(out) && out[i+1].num != "")) {
			t.stop = false
		}
	}
	return out
}

// numKey is the key of a number in a bag: the canonical number, then its
// unit after a space ("15 kwh"); reasons show it as it is.
func numKey(t token) string {
	if t.unit == "" {
		return t.num
	}
	return t.num + " " + t.unit
}

// plainSuffix marks the key of a number mentioned without a unit ("15 "):
// a bag's sets hold it beside "15", so that a number with a unit can find
// a unit-less mention of it.
const plainSuffix = " "

// numForms are the keys a bag's sets hold for one number: the key, and
// the bare number when it has a unit or its unit-less mark when not.
func numForms(t token) [2]string {
	if t.unit == "" {
		return [2]string{t.num, t.num + plainSuffix}
	}
	return [2]string{numKey(t), t.num}
}

// numLookups are the keys under which a statement's number key is found
// in evidence: a number with a unit under the same unit or unit-less; a
// unit-less number under any mention.
func numLookups(key string) []string {
	if base, _, ok := strings.Cut(key, " "); ok {
		return []string{key, base + plainSuffix}
	}
	return []string{key}
}

// hasNum reports whether a number key of a statement is in set d (a
// bag's numSet).
func hasNum(d *distinct, key string) bool {
	return slices.ContainsFunc(numLookups(key), d.has)
}

// apostrophes turns curly and modifier apostrophes into straight ones.
var apostrophes = strings.NewReplacer("\u2019", "'", "\u02bc", "'")

// wordToken normalises one lowercased word: clitics, negation, number
// words. apos says whether w holds an apostrophe.
func wordToken(w string, apos bool) token {
	neg := false
	if apos {
		w = apostrophes.Replace(w)
		switch {
		case strings.HasSuffix(w, "n't"):
			neg = true
			w = strings.TrimSuffix(w, "n't")
			switch w {
			case "ca":
				w = "can"
			case "wo":
				w = "will"
			case "sha":
				w = "shall"
			case "ai":
				w = "is"
			}
		case strings.IndexByte(w, '\'') > 0 && elisions[w[:strings.IndexByte(w, '\'')]]:
			neg = w[:strings.IndexByte(w, '\'')] == "n"
			w = w[strings.IndexByte(w, '\'')+1:]
		default:
			for _, c := range []string{"'s", "'re", "'ve", "'ll", "'d", "'m"} {
				if strings.HasSuffix(w, c) {
					w = strings.TrimSuffix(w, c)
					break
				}
			}
		}
		w = strings.ReplaceAll(w, "'", "")
	}
	lx, ok := lexicon[w]
	if !ok {
		return token{word: w, neg: neg}
	}
	if lx.num != "" {
		return token{num: lx.num, weak: lx.weak}
	}
	return token{word: w, neg: neg || lx.neg, stop: lx.stop, scale: lx.scale}
}

// lexical is what the word lists say of a word.
type lexical struct {
	neg, stop bool
	// num is the number a number word reads as, weak for "one".
	num   string
	weak  bool
	scale int8
}

// lexicon holds every word of negationWords, stopWords, numberWords and
// scaleWords, and "one": one look-up a word.
var lexicon = func() map[string]lexical {
	m := map[string]lexical{}
	for w := range negationWords {
		lx := m[w]
		lx.neg = true
		m[w] = lx
	}
	for w := range stopWords {
		lx := m[w]
		lx.stop = true
		m[w] = lx
	}
	for w, k := range scaleWords {
		lx := m[w]
		lx.scale = int8(k)
		m[w] = lx
	}
	for w, num := range numberWords {
		m[w] = lexical{num: num}
	}
	m["one"] = lexical{num: "1", weak: true}
	return m
}()

// negationWords are negation cues; "n't" and the French "n'" are others.
// Beside English (also its contractions written without the apostrophe),
// the common ones of German, French, Spanish, Portuguese, Italian, Dutch,
// Russian, Arabic and Korean; Chinese ones are characters (cjkNegations).
var negationWords = set(`
not no never cannot without none nor neither nobody nothing nowhere
cant dont doesnt didnt isnt arent wasnt werent couldnt shouldnt wouldnt wont hasnt havent hadnt mustnt neednt aint
nicht kein keine keinen keinem keiner keines nie niemals
ne pas jamais aucun aucune rien
nunca jamás ningún ninguno ninguna nadie tampoco
não nem nenhum nenhuma
niet geen nooit
не нет никогда
ليس ليست لا لم لن
안 못
`)

// elisions are the French elided words before an apostrophe ("l'eau",
// "n'est"); n' is a negation cue.
var elisions = set("l d n j qu c s m t")

// stopWords are not content words: function words, auxiliaries and modals,
// pronouns, hedges, discourse markers and unit words.
var stopWords = set(`
a about above after again against all almost also although always am among an and another any anyone
anything approximately are around as at be became because been before being below between both but
by can could did do does doing done down during each either else especially etc even ever every
for from further generally had has have having he her here hers herself him himself his how however
i if in including into is it its itself just least less let like likely may maybe me might more
moreover most mostly much must my myself namely nearly of off often on once only or other others
otherwise our ours ourselves out over overall own per percent pct perhaps possibly probably quite
rather really roughly same several shall she should since so some somewhat such than that the their
theirs them themselves then there therefore these they this those though through thus to too under
until up upon us usually very via was we were what whatever when whenever where whether which while
who whom whose why will with within would yet you your yours yourself yourselves
additionally furthermore also hence instead still whereas already
cent thousand million billion trillion yes sure ok okay please
`)

func set(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// irregular maps a few irregular plurals to their singular.
var irregular = map[string]string{"children": "child", "women": "woman", "men": "man"}

// stem reduces a lowercased content word with a light suffix stripper (see
// the package doc). It is deterministic and deliberately simple.
func stem(w string) string {
	if s, ok := irregular[w]; ok {
		w = s
	}
	if len(w) <= 3 {
		return w
	}
	// Plurals.
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "es") && len(w) > 4 && hasAnySuffix(w[:len(w)-2], "s", "x", "z", "ch", "sh") && len(w)-2 >= 3:
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !hasAnySuffix(w, "ss", "us", "is"):
		w = w[:len(w)-1]
	}
	// Verb and adverb endings.
	switch {
	case strings.HasSuffix(w, "ing") && len(w)-3 >= 3 && hasVowel(w[:len(w)-3]):
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w)-2 >= 3 && hasVowel(w[:len(w)-2]):
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ly") && len(w)-2 >= 5:
		w = w[:len(w)-2]
	}
	if len(w) > 3 {
		switch w[len(w)-1] {
		case 'e':
			w = w[:len(w)-1]
		case 'y':
			w = w[:len(w)-1] + "i"
		}
	}
	return w
}

func hasAnySuffix(w string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

func hasVowel(w string) bool {
	for i := 0; i < len(w); i++ {
		if strings.IndexByte("aeiouy", w[i]) >= 0 || w[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// undouble turns a doubled final consonant into one ("runn" -> "run"),
// except l, s and z ("call", "pass", "buzz").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && strings.IndexByte("bcdfghjkmnpqrtvwx", w[n-1]) >= 0 {
		return w[:n-1]
	}
	return w
}

// isContent reports whether a word token is a content word.
func isContent(t token) bool {
	if t.word == "" || t.neg || t.stop {
		return false
	}
	if utf8.RuneCountInString(t.word) > 1 {
		return true
	}
	// A lone Han character or Hangul syllable is a word; a lone kana is a
	// particle.
	r, _ := utf8.DecodeRuneInString(t.word)
	return unicode.In(r, unicode.Han, unicode.Hangul)
}

// negReach is how many words after a negation cue it negates (within
// its clause).
const negReach = 6

// bag is the lexical content of a text: distinct content stems and numbers
// in order of first appearance, and what its negations reach.
type bag struct {
	stems   []string
	surface []string // first surface form of each stem, for reasons
	nums    []string // numbers a statement must match (not weak)
	stemSet distinct // the stems
	numSet  distinct // every number, weak ones included
	// names are the stems of the content words written as names (see
	// token.name).
	names distinct
	// negStems and negNums are the content stems and numbers within reach
	// of a negation cue.
	negStems distinct
	negNums  distinct
	// neg reports whether a negation cue reaches a content word or number.
	neg bool
}

func newBag(s string) *bag {
	b := &bag{}
	var required distinct
	toks := tokenize(s)
	stems := make([]string, len(toks)) // stem of each content token, else ""
	for i, t := range toks {
		if t.num != "" {
			for _, f := range numForms(t) {
				b.numSet.add(f)
			}
			if key := numKey(t); !t.weak && required.add(key) {
				b.nums = append(b.nums, key)
			}
			continue
		}
		if !isContent(t) {
			continue
		}
		st := stem(t.word)
		stems[i] = st
		if b.stemSet.add(st) {
			b.surface = append(b.surface, t.word)
		}
		// A capitalised first word is a name when the next word is one
		// too ("Maria Berg designed"); a unit word never is.
		name := t.name || (t.capStart && i+1 < len(toks) && toks[i+1].name && toks[i+1].clause == t.clause)
		if name && units[t.word] == "" {
			b.names.add(st)
		}
	}
	b.stems = b.stemSet.items
	for i, t := range toks {
		if !t.neg {
			continue
		}
		for k := i + 1; k < len(toks) && k <= i+negReach && toks[k].clause == t.clause; k++ {
			switch {
			case stems[k] != "":
				b.negStems.add(stems[k])
				b.neg = true
			case toks[k].num != "":
				for _, f := range numForms(toks[k]) {
					b.negNums.add(f)
				}
				b.neg = true
			}
		}
	}
	return b
}

// empty reports whether the bag has neither content words nor required numbers.
func (b *bag) empty() bool { return len(b.stems) == 0 && len(b.nums) == 0 }

// hasContent reports whether s has a content word: whether newBag(s).stems
// is not empty. It reads s up to its first content word (applyScales only
// folds scale words, which are stop words, into numbers).
func hasContent(s string) bool {
	found := false
	scanTokens(s, func(t token) bool {
		found = isContent(t)
		return !found
	})
	return found
}

// distinct is a set of strings that keeps their order of first addition.
// A small set is searched in order; a larger one gets an index. The zero
// value is empty.
type distinct struct {
	items []string
	index map[string]struct{}
}

// linearMax is the size up to which a distinct set has no index.
const linearMax = 16

// add adds s and reports whether it was new.
func (d *distinct) add(s string) bool {
	if d.has(s) {
		return false
	}
	d.items = append(d.items, s)
	if d.index != nil {
		d.index[s] = struct{}{}
	} else if len(d.items) > linearMax {
		d.index = make(map[string]struct{}, 2*len(d.items))
		for _, x := range d.items {
			d.index[x] = struct{}{}
		}
	}
	return true
}

// has reports whether s is in the set.
func (d *distinct) has(s string) bool {
	if d.index != nil {
		_, ok := d.index[s]
		return ok
	}
	for _, x := range d.items {
		if x == s {
			return true
		}
	}
	return false
}
