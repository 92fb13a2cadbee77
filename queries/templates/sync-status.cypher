// name: sync-status
// purpose: What the database holds per input source: last update tag, whether it was in the last sync and read completely, nodes; and what the last sync skipped in that source.
// params: none
// counterpart: graph.meta of the synced graph (sources, problems) and the sources of each node and problem (graphkit.neo4j.sync.provenance, problem_sources)
// A source of the last sync that holds no node (every file of it skipped) has a row too (nodes 0, the last sync's tag).
// Rows are carried as [source, last_update_tag, nodes] lists between the two halves.
OPTIONAL MATCH (n:{{node}})
UNWIND coalesce(n.graphkit_sources, []) AS source
WITH source, max(n.update_tag) AS last_update_tag, count(n) AS nodes
WITH collect([source, last_update_tag, nodes]) AS held
OPTIONAL MATCH (m:GraphkitSync {id: 'graphkit'})
WITH held, m, [h IN held | h[0]] AS names
UNWIND held + [s IN coalesce(m.complete_sources, []) + coalesce(m.partial_sources, []) WHERE NOT s IN names
               | [s, m.update_tag, 0]] AS h
WITH m, h[0] AS source, h[1] AS last_update_tag, h[2] AS nodes
RETURN source, last_update_tag, last_update_tag = m.update_tag AS in_last_sync,
       source IN coalesce(m.complete_sources, []) AS complete, nodes, m.update_tag AS last_sync,
       [s IN coalesce(m.skipped_by_source, []) WHERE s STARTS WITH source + ': ' | substring(s, size(source) + 2)]
       AS skipped
ORDER BY source
