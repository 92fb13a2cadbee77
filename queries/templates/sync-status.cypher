// name: sync-status
// purpose: What the database holds per input source: last update tag, whether it was in the last sync and read completely, nodes; and what the last sync skipped.
// params: none
// counterpart: graph.meta of the synced graph (sources, problems) and the sources of each node (graphkit.neo4j.sync.provenance)
MATCH (n:{{node}})
UNWIND coalesce(n.graphkit_sources, []) AS source
WITH source, max(n.update_tag) AS last_update_tag, count(n) AS nodes
OPTIONAL MATCH (m:GraphkitSync {id: 'graphkit'})
RETURN source, last_update_tag, last_update_tag = m.update_tag AS in_last_sync,
       source IN coalesce(m.complete_sources, []) AS complete, nodes, m.update_tag AS last_sync,
       coalesce(m.skipped, []) AS skipped
ORDER BY source
