import { useSession } from './context';
import { shownName, useNames, type NameKind } from './pickers';
import { Named, namedCsv, type CsvComponent } from './ui';

type NameProps = { kind: NameKind; id: string | null | undefined; testId?: string };

/**
 * One cell naming a subject of the given kind by its id (its name over the id); its CSV is
 * `name (id)` once the name loaded, the id alone before or when it cannot be read.
 */
const NameOf: CsvComponent<NameProps> = ({ kind, id, testId }) => {
  const { client } = useSession();
  return <Named id={id} name={useNames(client, kind, [id]).get(id ?? '')} {...(testId ? { testId } : {})} />;
};
NameOf.csv = ({ kind, id }) => namedCsv(id, id ? shownName(kind, id) : undefined);

/** A cell naming a subject of one kind (its CSV as {@link NameOf}'s). */
function nameOfKind(kind: NameKind): CsvComponent<{ id: string | null | undefined; testId?: string }> {
  const Of: CsvComponent<{ id: string | null | undefined; testId?: string }> = ({ id, testId }) => <NameOf kind={kind} id={id} {...(testId ? { testId } : {})} />;
  Of.csv = ({ id }) => NameOf.csv({ kind, id });
  return Of;
}

/** An account's name over its id. */
export const AccountName = nameOfKind('account');
/** A rate plan's name over its id. */
export const PlanName = nameOfKind('rate_plan');
/** An agent instance's name over its id. */
export const AgentName = nameOfKind('agent');
/** Any kind of subject's name over its id (reports' group keys). */
export { NameOf };
