// Package offline is a deterministic judge that needs no network and no API
// key, so the whole gate runs anywhere: demos, smoke runs and tests.
//
// It is a lexical heuristic for demos, smoke runs and tests, NOT a substitute
// for an LLM judge. Its scores are not comparable with those of an LLM judge
// (or with Ragas), it does not understand paraphrase, synonyms, pronouns or
// world knowledge, and a results file judged by it carries its own judge
// fingerprint so it is never silently compared with an LLM-judged baseline.
// What it does guarantee: the same inputs always give the same answers, on
// every platform and Go version, and a response copied from its context
// verifies while a made-up number or a flipped negation does not.
//
// # Text processing
//
// Words are maximal runs of letters and digits (hyphens and other
// punctuation separate words; an apostrophe inside a word is kept only to
// strip the clitics 's 're 've 'll 'd 'm and n't, where n't marks negation).
// Content words are the lowercased words that are not on a fixed English
// stop-word list (function words, auxiliaries, hedges such as "likely" or
// "approximately", and unit words such as "percent" or "million"), reduced by
// a light stemmer: plural -s/-es/-ies, then -ing, -ed or -ly, an undoubled
// final consonant, a dropped final -e and a final -y read as -i, so that
// "companies"/"company", "produced"/"produce"/"producing" and
// "globally"/"global" meet.
//
// Numbers are read separately: "1,000", "1000" and "1000.00" are the same
// number; "71%" is 71; "$15" is 15; a k, thousand, million, billion or
// trillion right after a number scales it ("250K" = "250,000", "1.5 million"
// = "1500000"); the words two to twenty, thirty to ninety and hundred are
// numbers too. "one" is too ambiguous to be required, so a 1 in a statement
// is also found by the word "one" in the evidence. Negation cues are not, no,
// never, n't, cannot, without, none, nor, neither, nobody, nothing and
// nowhere.
//
// # Steps
//
// statements: the text is split into sentences at newlines, list bullets and
// numbered items, and at . ! ? followed by a space and a capital, digit or
// quote (or run into a capitalised word, as in "stuff.Most"); not after
// abbreviations such as "e.g.", "U.S.", "Dr." or "No.", initials ("J. K."),
// inside decimals ("3.5") or before a lowercase word. A sentence is then split
// into clauses at "; " and at ", and", ", but", ", yet", ", while" and
// ", whereas" when both sides have at least three words, a content word and
// a verb-like word (an auxiliary or modal, a common verb from a short list, a
// word ending in -ed, or the word after a subject pronoun). A short heading
// before a colon ("1. Influence on other countries: The ruling ...") is
// dropped. Questions, lines ending with a colon, markdown headings and
// fragments without a content word are dropped; exact duplicates are kept
// once. No pronoun resolution is attempted: "It was founded in 1961." stays
// as it is.
//
// verify: the evidence is split into sentences the same way (without clause
// splitting). For each statement the judge picks the evidence window of one
// to three consecutive sentences (DefaultWindow) that contains the most of
// the statement's distinct content words and numbers (ties: fewer sentences,
// then earlier). The statement is supported (verdict 1) when, in that window,
// (a) at least DefaultVerifyThreshold (0.7) of its distinct content words are
// found, (b) every number of the statement is found, and (c) the statement is
// negated exactly when the window's best-matching sentence is. A statement
// without content words or numbers is not supported. The reason says what
// was found and what was missing.
//
// useful: the context is useful (verdict 1) when it contains at least
// DefaultUsefulThreshold (0.5) of the distinct content words and numbers of
// the answer that are not already in the question (the answer's new
// information); when every answer word is in the question, all of the
// answer's words count; when the answer is empty, the question's words are
// used.
//
// question: the judge does not write a question; it returns the response
// itself as each of the Request.Count() generated questions, so answer
// relevancy becomes the cosine between the embeddings of the response and
// of the user input. Noncommittal is 1 when an evasive phrase ("I don't
// know", "it depends", "the context does not", ...; see evasivePhrases)
// occurs in the first sentence of the response, or anywhere in a response
// of at most two sentences: case-insensitive, tolerant of curly and missing
// apostrophes, on word boundaries.
//
// embed: hashed features, L2-normalised, in Options.Dim buckets (default
// 256): character trigrams of every content word with word-boundary markers
// ("<co", "com", ..., "es>") plus the stemmed content words themselves, each
// hashed with 64-bit FNV-1a into a bucket with a sign from the hash's top
// bit. A text without content words uses all its words; a text without words
// embeds as the zero vector. Integer feature counts make the vectors
// bit-for-bit reproducible.
//
// Info().Prompts carries HeuristicVersion and the thresholds in use, so
// results judged with different heuristics or settings get different judge
// fingerprints.
package offline
