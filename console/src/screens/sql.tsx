import { useState } from 'preact/hooks';
import { fetchText } from '../api';
import { useSession } from '../context';
import { downloadText } from '../csv';
import { countText } from '../describe';
import { ErrorBox, Panel, RecordTable, useAction } from '../ui';

/** Example queries, counting each event once as docs/analytics.md explains. */
const EXAMPLES: readonly (readonly [string, string])[] = [
  ['Actions by type (each event once)', 'SELECT action_type, count() AS actions\nFROM (\n  SELECT argMin(action_type, ingested_at) AS action_type\n  FROM actions\n  GROUP BY agent_instance_id, event_id\n)\nGROUP BY action_type\nORDER BY actions DESC'],
  ['Actions per day (each event once)', 'SELECT toDate(t) AS day, count() AS actions\nFROM (\n  SELECT argMin(ts, ingested_at) AS t\n  FROM actions\n  GROUP BY agent_instance_id, event_id\n)\nGROUP BY day\nORDER BY day DESC\nLIMIT 31'],
  ['Outcomes by type (each event once)', 'SELECT outcome_type, count() AS outcomes\nFROM (\n  SELECT argMin(outcome_type, ingested_at) AS outcome_type\n  FROM outcomes\n  GROUP BY agent_instance_id, event_id\n)\nGROUP BY outcome_type\nORDER BY outcomes DESC'],
  ['Daily costs', 'SELECT * FROM costs_daily LIMIT 31'],
];

/** SQL for analysts: the read-only, environment-scoped SQL endpoint (admin keys). */
export function Sql() {
  const { session, isAdmin } = useSession();
  const [query, setQuery] = useState(EXAMPLES[0]![1]);
  const [rows, setRows] = useState<Record<string, unknown>[] | undefined>(undefined);
  const action = useAction();
  if (!isAdmin) return <p class="muted">The SQL endpoint takes an admin key.</p>;
  const run = (format: 'JSONEachRow' | 'CSVWithNames') => fetchText(session.key, '/v1/sql', { method: 'POST', body: JSON.stringify({ query, format }), contentType: 'application/json' });
  return (
    <>
      <Panel title="Query">
        <div class="row">
          {EXAMPLES.map(([label, q]) => (
            <button type="button" class="small" key={label} onClick={() => setQuery(q)}>
              {label}
            </button>
          ))}
        </div>
        <label class="field wide" for="sql-query">
          <span>SQL (read-only; this environment's actions, outcomes, costs_daily, cost_events, cost_rules, outcome_rules)</span>
          <textarea id="sql-query" name="query" rows={7} value={query} onInput={(e) => setQuery((e.target as HTMLTextAreaElement).value)} spellcheck={false} />
        </label>
        <div class="row">
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () => {
                const text = await run('JSONEachRow');
                setRows(text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>));
              })
            }
          >
            Run
          </button>
          <button type="button" disabled={action.busy} onClick={() => void action.run(async () => downloadText('query.csv', await run('CSVWithNames'), 'text/csv'))}>
            Export CSV (whole result)
          </button>
        </div>
        <ErrorBox error={action.error} />
      </Panel>
      {rows ? (
        <Panel title={`Result: ${countText(rows.length, 'row')}`}>
          <RecordTable rows={rows} csvName="query-result" />
        </Panel>
      ) : null}
    </>
  );
}
