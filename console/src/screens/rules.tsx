import { must } from '../api';
import { useSession } from '../context';
import { ErrorBox, Panel, RecordTable, useLoad } from '../ui';

/** Costs and outcome rules, and the tagged actions (read here; edited through the API for now). */
export function Rules() {
  const { client } = useSession();
  const cost = useLoad(() => must(client.GET('/v1/cost_rules', { params: { query: {} } })), []);
  const outcome = useLoad(() => must(client.GET('/api/v1/outcome_rules', { params: { query: {} } })), []);
  const tagged = useLoad(() => must(client.GET('/api/v1/tagged_actions')), []);
  return (
    <>
      <Panel title="Cost rules">
        <ErrorBox error={cost.error} />
        <RecordTable rows={(cost.data?.cost_rules ?? []) as Record<string, unknown>[]} csvName="cost-rules" />
      </Panel>
      <Panel title="Outcome rules">
        <ErrorBox error={outcome.error} />
        <RecordTable rows={(outcome.data?.outcome_rules ?? []) as Record<string, unknown>[]} csvName="outcome-rules" />
      </Panel>
      <Panel title="Tagged actions">
        <ErrorBox error={tagged.error} />
        <RecordTable rows={(tagged.data?.tagged_actions ?? []) as Record<string, unknown>[]} csvName="tagged-actions" />
      </Panel>
    </>
  );
}
