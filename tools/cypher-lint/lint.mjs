// Lint Cypher statements with Neo4j's own front end (@neo4j-cypher/language-support: Neo4j's parser and semantic
// analysis compiled to JavaScript), for Cypher 5 and Cypher 25.
//
// stdin:  {"statements": [{"name": "...", "text": "..."}], "schema": {"labels": [...], "relationshipTypes": [...]}}
// stdout: [{"name", "version", "severity": "error"|"warning"|"information"|"hint", "message", "line"}]
// Parameters are values given at run time: "Parameter $x is not defined" is not reported.
import { readFileSync } from 'node:fs';
import { lintCypherQuery, isNotParamError } from '@neo4j-cypher/language-support';

const SEVERITY = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };
const input = JSON.parse(readFileSync(0, 'utf8'));
const out = [];
for (const version of ['5', '25']) {
  for (const { name, text } of input.statements) {
    // the version prefix on a line of its own: reported lines are 1-based lines of `text`
    const { diagnostics } = lintCypherQuery(`CYPHER ${version}\n${text}`, input.schema ?? {});
    for (const d of diagnostics.filter(isNotParamError)) {
      out.push({ name, version, severity: SEVERITY[d.severity] ?? String(d.severity), message: d.message,
                 line: d.range.start.line });
    }
  }
}
process.stdout.write(JSON.stringify(out));
