import { useSession } from './context';
import { useNames, type NameKind } from './pickers';
import { Named } from './ui';

/** One cell naming a subject of the given kind by its id (its name over the id). */
function NameOf({ kind, id, testId }: { kind: NameKind; id: string | null | undefined; testId?: string }) {
  const { client } = useSession();
  return <Named id={id} name={useNames(client, kind, [id]).get(id ?? '')} {...(testId ? { testId } : {})} />;
}

/** An account's name over its id. */
export const AccountName = ({ id, testId }: { id: string | null | undefined; testId?: string }) => <NameOf kind="account" id={id} {...(testId ? { testId } : {})} />;
/** A rate plan's name over its id. */
export const PlanName = ({ id }: { id: string | null | undefined }) => <NameOf kind="rate_plan" id={id} />;
/** An agent instance's name over its id. */
export const AgentName = ({ id, testId }: { id: string | null | undefined; testId?: string }) => <NameOf kind="agent" id={id} {...(testId ? { testId } : {})} />;
/** Any kind of subject's name over its id (reports' group keys). */
export { NameOf };
