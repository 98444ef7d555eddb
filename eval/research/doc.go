// Package research is an offline harness for choosing memproxy's memory
// design on LoCoMo: which memory units to store, what text to index, and
// how to search and rank them. It measures evidence recall@k and injected
// tokens for many designs in seconds, without the proxy, the store or the
// queue, so the product defaults can be chosen on numbers.
//
// It is not on the product path: nothing in memproxy imports it. Its BM25
// and feature-hashing embedder variants are baselines and experiments; the
// product's own embedder and recall are plugged in where available.
package research
