// Package admin is memproxy's management API, mounted on the proxy's echo
// server: operators (and users, through them) see, search, correct, export
// and erase what memproxy remembers, read the audit log and the A/B report,
// issue client keys, import history and run maintenance.
//
// Routes live under /admin/v1 and need "Authorization: Bearer <admin
// token>" (compared in constant time); the API is not mounted at all when
// no admin token is configured, and the upstream key is never accepted.
// /admin/ serves the memory browser page (static, embedded) which uses only
// this API. POST /memproxy/v1/feedback takes apps' thumbs up/down for the
// A/B report; it sits outside /v1/, which is all pass-through.
//
// Errors are OpenAI-shaped JSON ({"error":{"message","type","param",
// "code"}}); every input is validated with a message naming the parameter.
//
// The package depends on small interfaces defined here (Store, Queue,
// Searcher, Embedder), not on the concrete stores or the queue.
package admin
