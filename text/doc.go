// Package text holds memproxy's one set of lexical rules: the token
// counter, the tokeniser both stores index with (stemmed words, CJK
// bigrams and characters split at function characters), the stopword
// list, the light stemmer, sentence splitting, question detection and
// relative-date resolution. Gate,
// memory, background and the fact extractor all use it, so a word means
// the same thing everywhere.
//
// The one documented exception is the frozen local-hash-v1 embedder
// (package embed): its features (own stopword weights, stemmer and
// irregular forms) are part of the vectors it produced, and changing them
// would silently change every stored embedding.
package text
