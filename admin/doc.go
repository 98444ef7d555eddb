// Package admin is memproxy's management API, mounted on the proxy's echo
// server: operators (and users, through them) see, search, correct, export
// and erase what memproxy remembers, read the audit log and the A/B report,
// issue client keys, import history and run maintenance.
//
// Routes live under /admin/v1 and need "Authorization: Bearer <admin
// token>" (compared in constant time); the API is not mounted at all when
// no admin token is configured, and neither the upstream key nor a client
// key is ever accepted. /admin/ serves the memory browser page (static,
// embedded) which uses only this API. POST /memproxy/v1/feedback takes
// apps' thumbs up/down for the A/B report; it sits outside /v1/, which is
// all pass-through.
//
//	GET    /admin/v1/users                          ?limit&cursor
//	GET    /admin/v1/users/{user}/memories          ?namespace&tier&state&q&key&source&session&since&until&limit&cursor&embedding
//	POST   /admin/v1/users/{user}/memories          {namespace,tier,text,value,confidence,key,no_decay,expires_at}
//	GET    /admin/v1/users/{user}/search            ?q&namespace&k&min_score&at
//	GET    /admin/v1/users/{user}/entities          ?namespace&limit&cursor
//	GET    /admin/v1/users/{user}/entities/{name}   ?namespace (name or alias, any case)
//	DELETE /admin/v1/users/{user}                   ?namespace
//	GET    /admin/v1/users/{user}/export            ?format=json|markdown&namespace
//	POST   /admin/v1/users/{user}/import            (the JSON export)
//	POST   /admin/v1/users/{user}/turns             {namespace,session,turns:[{time,user,assistant,refs,session,request_id}]}
//	GET    /admin/v1/memories/{id}                  ?user&namespace (optional: found by id alone)
//	PATCH  /admin/v1/memories/{id}                  {text,tier,value,confidence,key,no_decay,expires_at,archived}
//	DELETE /admin/v1/memories/{id}
//	GET    /admin/v1/memories/{id}/history
//	GET    /admin/v1/audit                          ?user&since&limit
//	GET    /admin/v1/ab                             ?since
//	GET    /admin/v1/queue
//	GET    /admin/v1/requests/{request_id}
//	POST   /admin/v1/maintenance/decay              ?at
//	POST   /admin/v1/keys                           {user,allow_named_users,label}
//	GET    /admin/v1/keys
//	DELETE /admin/v1/keys/{id}
//	POST   /memproxy/v1/feedback                    {request_id,score}
//
// Listings answer {"data":[...],"next":"<cursor>"}; errors are OpenAI-shaped
// JSON ({"error":{"message","type","param","code"}}) with param naming the
// offending input. Calls are rate limited per client address (policy
// admin.rate_per_second and admin.burst) and bodies are size-limited.
//
// The package depends on small interfaces defined here (Store, Queue,
// Searcher, Embedder), not on the concrete stores.
package admin
