// Package dataset loads golden datasets for raggate: JSON Lines, JSON arrays,
// CSV and Parquet files of samples, in either Ragas vocabulary, with optional
// field mapping, extra columns kept as metadata, and an optional separate
// file of pipeline responses. It validates
// everything it reads and reports every problem with its file, line and
// column, saying how to fix it.
//
// # Formats
//
// The format is chosen by Options.Format, else by the file extension, else by
// sniffing the first bytes (after an optional UTF-8 byte order mark, which is
// always stripped):
//
//   - .parquet, or a file starting with the Parquet magic "PAR1": Parquet,
//     read by the decoder given to RegisterParquet (importing
//     internal/dataset/parquetfile registers one). Top-level columns are the
//     keys; list columns are lists, a null is an absent field, numbers and
//     booleans are what JSON numbers and booleans are. Rows are numbered
//     from 1 and take the place of lines in Dataset.Lines and problems.
//     What the rows decode to is bounded like JSON Lines: a row by
//     Limits.MaxLineBytes, the decoded values of all rows by
//     Limits.MaxBytes, and the rows to one per KiB of Limits.MaxBytes.
//   - .csv: CSV (comma-separated, RFC 4180 quoting). The first row is a
//     header naming the fields; header names are trimmed of surrounding
//     spaces, values are not. List fields are written as a JSON array of
//     strings inside the cell, e.g. "[""first"",""second""]". An empty cell
//     means the field is absent; rows of empty cells (",,,") and lines of
//     spaces are skipped. A line break inside a quoted cell is read as
//     "\n" even when the file uses CRLF (encoding/csv behaviour).
//   - .jsonl, .ndjson, .json and any other name: if the first non-space byte
//     is '[' the file is one JSON array of sample objects. If it is '{':
//     .jsonl and .ndjson files are JSON Lines (one object per line); a .json
//     file (or one with another extension) is JSON Lines when its first
//     non-blank line holds a complete JSON value by itself, and otherwise a
//     sequence of pretty-printed JSON objects (one object spread over several
//     lines is a one-sample dataset). A .json file starting with anything
//     else is an error; a file with an unknown extension starting with
//     anything else is read as CSV.
//
// In JSON Lines, blank lines are skipped and a trailing "\r" (CRLF line ends)
// is ignored. Strings are kept exactly as
// given, including leading and trailing whitespace. A JSON null means the
// field is absent.
//
// # Limits
//
// Options.Limits bound what is read, so that a wrong file (a device such as
// /dev/zero, a binary, a huge dump) is refused quickly rather than filling
// memory: a line of a JSON Lines file is at most DefaultMaxLineBytes (16
// MiB) and a file at most DefaultMaxBytes (1 GiB), unless raised or lifted.
// JSON Lines are read a line at a time (memory holds the samples, not the
// file), a responses file's too when Load joins it; JSON arrays,
// pretty-printed objects and CSV files are read whole, within the file
// limit. LoadContext and Read stop promptly
// when their context ends, also while a read blocks on a pipe.
//
// # Fields
//
// Both Ragas vocabularies are accepted: user_input, retrieved_contexts,
// response, reference, reference_contexts, retrieved_context_ids,
// reference_context_ids, and the older question (user_input), contexts
// (retrieved_contexts), answer (response), ground_truth and ground_truths
// (reference). A reference given as a list of strings is joined with "\n".
// Two names for the same field in one sample (say question and user_input)
// are accepted only when they give the same value.
//
// Options.Mapping maps a canonical field name (or "id") to the name a file
// uses for it, e.g. {"response": "answer_text"}; a mapped name takes
// precedence over the built-in names. A mapped string where a list field is
// expected becomes a one-item list (unmapped, it is an error). Mapping keys
// must be canonical names; the mapping applies to the golden file and to the
// responses file. A mapped name that no row uses is a warning (Load looks at
// both files; Parse only at the one it is given).
//
// # Metadata
//
// Any other key (or CSV or Parquet column) is kept in the sample's
// Metadata, as text: strings as they are, numbers and booleans as written
// in the file, lists and objects as compact JSON; a null or an empty CSV
// cell gives no value. A value is cut to MaxMetadataValue bytes (ending with
// TruncatedMark) and a sample keeps its first MaxMetadataKeys keys in file
// order; both cuts are warnings. Keys other tools use for our fields (query,
// context, label, ...) are kept too, with a warning suggesting the mapping
// when no sample has that field. Keys listed in Options.Ignore are dropped.
//
// A key that looks like a misspelling of a field name, an old name or a
// mapped name is an error with a "did you mean" suggestion, reported once
// per file where it first occurs: it differs only in case, or by at most
// len/5 edits (1 to 3; a swap of adjacent letters is one edit) from a name
// of more than 4 letters, and is not that name with a prefix or suffix set
// off by a non-letter nor a sibling of it differing in one short token
// (context_v2 beside a mapped context_v1, answer_b beside answer_a; see
// suggest.Misspelling). "reference_context"
// (singular) is such an error: it is far more likely a typo of
// reference_contexts.
//
// With Options.StrictFields every other key is an error, except the
// metadata keys that Ragas and its test-set generators write (metadata,
// episode_done, evolution_type, synthesizer_name, multi_responses, rubrics,
// persona_name, query_style, query_length), which are kept as metadata.
//
// # Ids
//
// A sample's id is its "id" field (a string, or a number kept as written:
// 7 is "7", 7.0 is "7.0"), else "q-" followed by the first 12 hex digits of
// the SHA-256 of its user_input, exactly as given. Ids are unique: two
// samples with the same user_input and no id are an error asking for ids.
// A sample needs an id or a user_input. DeriveID computes derived ids.
//
// # Responses file
//
// The pipeline's outputs may come in a separate file (Options.ResponsesPath
// for Load, or LoadResponses / ParseResponses), in any of the formats above.
// Each row gives "id" and/or "user_input", and any of response,
// retrieved_contexts and retrieved_context_ids (old names accepted); other
// sample fields are errors there, because they belong in the golden file.
// Its extra keys follow the metadata rules and join the sample's metadata,
// replacing the golden file's values for the same keys. A
// row is joined to the golden sample with its id, else to the one sample
// with its user_input (a user_input shared by several samples needs an id).
// A row giving an id and a user_input must give the sample's user_input
// (compared without surrounding whitespace): a mismatch means the responses
// are stale. The fields a row gives replace the golden file's values. Two
// rows for one sample are an error. Rows that match no sample are ignored
// with a warning listing them; golden samples with no row keep only what the
// golden file gives (usually no response, so metrics needing it are
// skipped), with a warning listing them.
//
// Dataset.SHA256 is the hex SHA-256 of the golden file's bytes, as
// sha256sum prints it. When a responses file is joined it becomes the hex
// SHA-256 of the 64 bytes made of the raw digest before the join followed by
// the raw digest of the responses file's bytes.
//
// # Errors
//
// Load, Parse and the responses functions collect every problem they find
// (the first MaxProblems, then a count of the rest) and return them as an
// *Error, one problem per line:
//
//	file:line:col: field: what is wrong; how to fix it
//
// or, in a Parquet file, "file: row N: field: ...". A Parquet file that
// cannot be decoded is one problem naming the file.
//
// Line and column are 1-based; columns count bytes (like Go's compiler) and
// start after a byte order mark. A problem with a value points at the value,
// one with a whole sample at its first byte (in CSV, at its line), one with
// a CSV column at its header cell. The field part is the key as written in
// the file (e.g. "contexts"). Parts that do not apply are left out: problems
// with the options have no file, and whole-file problems (such as "no
// samples") no line. Invalid UTF-8 is reported for every line that has it,
// and stops loading. In JSON Lines every line is checked; in a JSON array or
// CSV file a syntax error stops loading, because what follows it cannot be
// located reliably.
//
// Dataset.Line gives the line where each sample starts; samples of a
// minified JSON array share line 1.
//
// A load with Options.Spool writes each sample to the spool as it is read
// and keeps in memory a few bytes of it (its id, its line, and indexes
// into the distinct sets of fields present and the distinct metadata
// maps, which samples share): Samples and Lines stay nil, and Len, ID,
// Has, Light, All, Line and Where read the samples on any dataset. A
// responses file joined to a spooled dataset writes each joined sample to
// the spool again (the spool grows by the joined samples' size).
package dataset
