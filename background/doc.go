// Package background is memproxy's asynchronous half: a durable River queue
// (riversqlite on the embedded SQLite file, riverdatabasesql on PostgreSQL)
// and its workers. Every captured turn becomes an Ingest job committed
// before the client's last bytes; workers drop noise, store explicit notes at
// once, extract cheap facts by rule, keep the rest as events, consolidate a
// pattern only when it repeats, reconcile new facts against old ones
// (reinforce or supersede), summarise idle sessions and let unused memories
// decay.
//
// Nothing the proxy accepted is lost: jobs live in the same database as the
// memories, so they survive crashes and are shared by replicas; River hands
// each job to one worker and elects one leader for periodic work.
package background
