// Package offline is a deterministic judge that needs no network and no API
// key, so the whole gate runs anywhere: demos, smoke runs and tests.
//
// It is a lexical heuristic for demos, smoke runs and tests, NOT a
// substitute for an LLM judge. It matches words, not meaning: its scores are
// not comparable with those of an LLM judge (or with Ragas), and the floors
// that suit an LLM judge do not suit it. Info reports its own provider,
// model and heuristic version, so results it judged get their own judge
// fingerprint and are never silently compared with an LLM-judged baseline.
// What it does guarantee: the same inputs always give the same answers, on
// every platform and Go version; a statement copied from the evidence is
// supported, while a made-up number or a flipped negation is not.
//
// # Words, numbers and negation
//
// Words are maximal runs of letters and digits; hyphens and other
// punctuation separate words. An apostrophe inside a word is only kept to
// strip the clitics 's 're 've 'll 'd 'm and n't (n't is a negation: "can't"
// is "can" + negation). Content words are the lowercased words of two or
// more letters that are not on a fixed English stop-word list (function
// words, auxiliaries and modals, pronouns, hedges such as "likely" or
// "approximately", "yes", and unit words such as "percent" or "million"),
// reduced by a light stemmer: plural -s/-es/-ies, then -ing, -ed or -ly, an
// undoubled final consonant, a dropped final -e and a final -y read as -i,
// so that "companies"/"company", "produced"/"produce"/"producing",
// "globally"/"global" and "children"/"child" meet.
//
// Numbers are read apart from words: "1,000", "1000" and "1000.00" are one
// number; a minus sign right before the digits (not a hyphen after a word
// or digit) is kept; "13,5" before a space, a unit or the end is 13.5;
// "$15k", "$1.5m" and "$2b" scale after a currency sign; a unit word right
// after a number ("15 kWh", "15kg", "15-year", "71%") is part of it (see
// units: "15 kwh" matches "15 kwh" or a bare 15, never "15 mwh"); "$15" is 15; "21st" is 21 and "1990s" is 1990; a
// hundred, thousand, million, billion or trillion (or a "bn" suffix) right
// after a number scales it ("1.5 million" = "1,500,000"); the words two to
// twenty, thirty to ninety and a lone hundred are numbers. "one" is too
// ambiguous to require ("one of the largest"), but it does supply a 1 in
// evidence. "401k", "4g" and "co2" are words, not numbers.
//
// A citation marker of a RAG answer or of its sources ("[3]", "[1, 4]",
// "[2-5]": digits, commas, spaces and hyphens in square brackets) is
// skipped: its numbers are not claims. A word written with a capital that
// does not start the text, a sentence (after . ! or ?), a line or what
// follows a colon is a name ("Peabody" in "from Chevron and Peabody"); so
// is a capitalised first word followed by a name ("Maria Berg ..."), but
// never a unit word. An upper-case stop word beside a number is content
// ("US 60"). Runs of Han, kana and Hangul are split into overlapping
// character bigrams; negation cues cover several languages (see
// negationWords and cjkNegations) and the French elision n'. Markdown
// table header and separator rows are not statements.
//
// Negation cues are not, no, never, n't, cannot, without, none, nor,
// neither, nobody, nothing and nowhere. A cue reaches the next six words of
// its clause (a clause ends at , ; : ( ) [ ] { } double quotes, dashes and
// sentence ends), so "eight that no longer exist" negates "exist" but not
// the rest of the sentence around its parentheses.
//
// # statements
//
// The text is split into lines, then list markers ("- ", "* ", "• ", "1. ",
// "2) ", "(a) ", "> ") are removed and each line is split into sentences at
// . ! ? or … (runs included, closing quotes and brackets kept) followed by a
// space and a word that does not start lowercase, and at a period run into
// a capitalised word ("stuff.Most"). A period does not end a sentence after
// a title or short form ("Dr.", "Mr.", "No.", "approx.", "Jan.", ...), nor
// inside a decimal ("3.5"), nor before a lowercase word ("e.g. a fund");
// after a dotted abbreviation or an initial ("U.S.", "S.A.", "J.") it ends
// one only before a common sentence starter ("The", "It", "This", "In",
// ...): "the U.S. Supreme Court" stays whole, "S.A. It is" splits.
//
// A sentence is split into clauses at "; ", ", and ", ", but ", ", yet ",
// ", while " and ", whereas " when both sides have at least three words, a
// content word and a verb-like word: an auxiliary, modal or common verb
// from a short list, a negation, or the word after a subject pronoun (I,
// you, he, she, it, we, they). Words in -ed do not count (too many are
// participles: "disparities faced by"), so "ExxonMobil, Chevron, and
// Peabody" is never split, and neither is "the court ruled, and the state
// appealed". The coordinator is dropped and the next clause capitalised.
//
// A short heading before ": " (at most eight words, no verb-like word) is
// dropped when the rest is a clause: "1. Influence on other countries: The
// ruling can serve ..." gives "The ruling can serve ...". Questions, lines
// ending with a colon (list introductions), markdown headings and fragments
// without a content word are dropped; "**" and "__" are removed; statements
// lacking final punctuation get a period; duplicates (ignoring case) are
// kept once. There is no pronoun resolution: "It was founded in 1961." stays
// as it is, and a statement is never rewritten. Only an empty text has no
// statements: a text that leaves nothing after these rules (a bare "I don't
// know.", a question back) is kept whole, on one line, as one statement, so
// that a refusal is judged (and unsupported) rather than undefined.
//
// # claims
//
// Atomicity low: the sentences of the text, found as for statements but
// without splitting clauses; atomicity high: the statements' clauses.
// Coverage low removes parenthesised and bracketed asides ("The Rhine is
// 1,230 km long (it rises in the Alps)." gives "The Rhine is 1,230 km
// long."); coverage high keeps them. A text left without claims gets its
// statements.
//
// # attribute
//
// The reference is split into sentences (claims at atomicity low, asides
// kept). Each sentence is one item, however many facts it holds: it is
// attributed when every one of its clauses (as the statements step splits
// them) verifies against the joined contexts as verify does, each clause in
// its own window, so that a sentence whose facts come from two contexts can
// be attributed; the reason is that of the first clause that fails (or of
// the last one).
//
// # verify_pair
//
// Each of the two lists gets exactly the verdicts verify gives it.
//
// # verify
//
// The evidence is split into sentences the same way (without clause
// splitting or dropping anything). For each statement the judge takes the
// window of one to three consecutive evidence sentences (DefaultWindow)
// that contains the most of the statement's distinct content words and
// numbers; ties go to a window whose negation agrees (below), then to fewer
// sentences, then to the earlier window. The statement is supported
// (verdict 1) when, in that window:
//
//   - at least VerifyThreshold (default 0.7) of its distinct content words
//     occur,
//   - every number of the statement occurs, and
//   - negation agrees: a negation cue of the statement reaches one of its
//     content words or numbers exactly when a negation cue of the window's
//     best-matching sentence reaches one of the statement's content words
//     or numbers.
//
// A statement without content words or numbers is not supported; with
// empty evidence nothing is. Windows of three sentences and the 0.7
// threshold were chosen on the Ragas sample datasets amnesty_qa and fiqa:
// reference answers derived from the contexts mostly verify, while the LLM
// responses that add facts mostly do not.
//
// Besides the verdict, each statement gets a graded support in [0, 1]
// (metrics.StatementVerdict.Support), which faithfulness averages over the
// statements (the verdicts still serve factual correctness, noise
// sensitivity and the reasons). It is taken on its own window of one to
// three sentences, the one with the highest weighted share of the
// statement's distinct content words (1 each) and numbers (2 each) found,
// multiplied by 0.95 for each sentence beyond the first (facts found
// together support a statement more than the same words scattered); ties
// as for the verdict. That share is then halved when a number of the
// statement is missing from the window, multiplied by 0.7 when negation
// disagrees (as above) and by 0.8 when a name of the statement is nowhere
// in the evidence. A statement copied from one evidence sentence has
// support 1. These weights are one setting for every dataset, chosen on
// AttributionBench dev and the HaluEval samples of testdata/datasets
// (TestFaithfulnessBeatsContentWordOverlap). The reason gives the support,
// what was found and what was missing, for example "support 0.25: 6/10
// content words found (missing: run, whole, house, week); number 20 not in
// evidence".
//
// Statements of which none has a content word other than a label word
// (true, false, correct, incorrect, right, wrong, supports, refutes, not
// enough info, entailment, contradiction, neutral, unknown; yes and no are
// not content words) are not judged: the step returns a *judge.Undefined
// wrapping judge.ErrNothingToCheck, "nothing to check offline: ...", and
// the metric is undefined for that sample with kind metric, never 0. A
// bare "Yes.", "SUPPORTS", "42", "$15" or "71%" is such an answer. The
// same holds for verify_pair.
//
// # useful
//
// The context is useful (verdict 1) when it contains at least
// UsefulThreshold (default 0.5) of the answer's distinct content words and
// numbers that are not in the question (the answer's new information).
// When every answer word is in the question, all of the answer's words
// count; when the answer has none, the question's words are used.
//
// # question
//
// The judge does not write questions: each of the Request.Count() answers
// is the response itself, so answer relevancy becomes the cosine between the
// embeddings of the response and of the user input. Noncommittal is 1 when
// an evasive phrase ("I don't know", "I'm not sure", "cannot answer",
// "unable to", "no information", "not enough information", "it depends",
// "the context does not", "not mentioned", ...) occurs in the first sentence
// of the response, or anywhere in a response of at most two sentences; a
// caveat later in a substantive answer is not evasion. Matching ignores case,
// punctuation and apostrophes (straight, curly or missing: "I dont know"
// matches) and is on whole words.
//
// # embed
//
// Each text becomes Options.Dim (default 256) hashed features, L2-normalised:
// the character trigrams of every content word with boundary markers
// ("<co", "com", ..., "es>"), the stemmed content words and the numbers.
// Each feature is hashed with 64-bit FNV-1a; the hash modulo Dim picks the
// bucket and its top bit the sign (+1 or -1). A text without content words
// uses all its words (so "it is what it is" is not the zero vector); a text
// without words is the zero vector. Counts are integers until the final
// division, so vectors are bit-for-bit reproducible.
//
// # Declined metrics
//
// Measured on labelled pairs (honesty_test.go: a good and a flawed
// candidate for the same question, built from the amnesty_qa sample
// dataset), these heuristics rank context_precision, precision_at_k,
// context_recall, answer_relevancy and noise_sensitivity_relevant
// correctly in less than 0.70 of the pairs of some kind of flaw
// (context_utilization shares context_precision's usefulness verdicts).
// Measured on human labels where the reference is written independently of
// the responses (human_test.go: EVOUNA, STS-B), factual_correctness and
// semantic_similarity do not beat a trivial lexical baseline by 0.05 on
// every set; noise_sensitivity_irrelevant was never shown to work on such
// labels; answer_correctness is built from factual correctness and
// similarity. All of them are declined.
// The metric catalogue declares them (metrics.Metric.OfflineUnreliable),
// Unreliable lists them; DefaultSuite leaves them out and Declines gives
// the reason a run that names one records for its undefined scores. The
// steps above still answer for them (the measurement needs it).
//
// # Settings and versions
//
// Info().Prompts is HeuristicVersion plus the thresholds and window in use;
// bump HeuristicVersion whenever any answer can change. Options with zero
// or out-of-range fields take the defaults; the zero Judge is usable.
//
// # Known limits
//
// No synonyms or paraphrase beyond shared stems ("limited opportunities"
// does not meet "considerable constraints"); no pronoun or coreference
// resolution; no world knowledge; negation is lexical ("avoid having more
// than 5%" is not a negation, and a negation in a subordinate clause that
// mentions the statement's words counts); numbers must match exactly after
// normalisation (0.71 is not 71%, "a third" is not 1/3); a statement whose
// facts are spread over more than three evidence sentences fails; long
// evidence shares many topic words, so a plausible made-up statement on the
// same topic can pass; chit-chat that is true but not in the evidence ("Hope
// you enjoy!") is unsupported; English only.
package offline
