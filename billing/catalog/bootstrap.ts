import { sql } from 'kysely';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../../shared/db/postgres.ts';
import type { EnvironmentName, KeyKind, Permission } from '../../shared/db/schema.ts';
import { displayPrefix, generateKey } from '../../shared/auth/keys.ts';
import { hashSecret, newId } from '../../shared/ids.ts';

export const ENVIRONMENTS: readonly EnvironmentName[] = ['development', 'staging', 'production'];

export interface InitResult {
  organization_id: string;
  environments: Record<EnvironmentName, { id: string; admin_api_key: string | null; sdk_key: string | null }>;
  /** True when this call created the organization (keys are new). */
  created: boolean;
}

/**
 * Creates the organization, its three environments and a first admin API key and SDK
 * key for each; run again, reports them. Keys are stored hashed in Postgres; the clear
 * keys of the first run are kept in `<data dir>/credentials.json` (mode 0600) so a
 * later `init` can show them again on the same machine.
 */
export async function initTally(db: Db, opts: { dataDir: string; organizationName?: string }): Promise<InitResult> {
  const file = path.join(opts.dataDir, 'credentials.json');
  return db.transaction().execute(async (trx) => {
    // One bootstrap at a time, even with several processes starting together.
    await sql`SELECT pg_advisory_xact_lock(7243001)`.execute(trx);
    const org = await trx.selectFrom('organizations').select('id').orderBy('created_at').limit(1).executeTakeFirst();
    if (org) {
      const envs = await trx.selectFrom('environments').select(['id', 'name']).where('organization_id', '=', org.id).execute();
      const saved = await readSaved(file, org.id);
      const environments = {} as InitResult['environments'];
      for (const e of envs) environments[e.name] = { id: e.id, admin_api_key: saved?.[e.name]?.admin_api_key ?? null, sdk_key: saved?.[e.name]?.sdk_key ?? null };
      return { organization_id: org.id, environments, created: false };
    }
    const created = await createOrganization(trx, opts.organizationName ?? 'Default organization');
    await saveCredentials(file, created);
    return { ...created, created: true };
  });
}

/**
 * Another organization on the same database (`tally init --new-organization`): its three
 * environments and first keys, isolated from every other organization's data. Its clear
 * keys are kept in `<data dir>/credentials-<organization id>.json` (mode 0600).
 */
export async function initNewOrganization(db: Db, opts: { dataDir: string; organizationName: string }): Promise<InitResult> {
  const created = await db.transaction().execute((trx) => createOrganization(trx, opts.organizationName));
  await saveCredentials(path.join(opts.dataDir, `credentials-${created.organization_id}.json`), created);
  return { ...created, created: true };
}

/** An organization, its three environments and an admin API key and SDK key for each (returned in clear). */
async function createOrganization(trx: Db, name: string): Promise<Omit<InitResult, 'created'>> {
  const organizationId = newId('org');
  await trx.insertInto('organizations').values({ id: organizationId, name }).execute();
  const environments = {} as InitResult['environments'];
  for (const envName of ENVIRONMENTS) {
    const envId = newId('env');
    await trx.insertInto('environments').values({ id: envId, organization_id: organizationId, name: envName }).execute();
    const admin = await insertKey(trx, organizationId, envId, envName, 'api', 'admin', 'bootstrap admin key');
    const sdk = await insertKey(trx, organizationId, envId, envName, 'sdk', 'sdk', 'bootstrap SDK key');
    environments[envName] = { id: envId, admin_api_key: admin, sdk_key: sdk };
  }
  return { organization_id: organizationId, environments };
}

async function saveCredentials(file: string, r: Omit<InitResult, 'created'>): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ organization_id: r.organization_id, environments: r.environments }, null, 2), { mode: 0o600 });
}

interface MintedKey {
  id: string;
  key: string;
  organization_id: string;
  environment: EnvironmentName;
  environment_id: string;
  permission: Permission;
}

/**
 * A new API key for an environment (`tally keys create`): the operator's way back in when
 * every admin key is lost. The organization is the given one, else the only one there is.
 */
export async function mintApiKey(
  db: Db,
  opts: { environment: EnvironmentName; organizationId?: string; permission?: Permission; name?: string },
): Promise<MintedKey> {
  const orgs = await db.selectFrom('organizations').select('id').$if(opts.organizationId !== undefined, (q) => q.where('id', '=', opts.organizationId!)).execute();
  if (orgs.length === 0) throw new Error(opts.organizationId ? `no organization ${opts.organizationId}` : 'no organization yet: run `tally init` first');
  if (orgs.length > 1) throw new Error(`${orgs.length} organizations: name one with --organization (${orgs.map((o) => o.id).join(', ')})`);
  const organizationId = orgs[0]!.id;
  const env = await db.selectFrom('environments').select('id').where('organization_id', '=', organizationId).where('name', '=', opts.environment).executeTakeFirst();
  if (!env) throw new Error(`organization ${organizationId} has no ${opts.environment} environment`);
  const permission = opts.permission ?? 'admin';
  const key = await insertKey(db, organizationId, env.id, opts.environment, 'api', permission, opts.name ?? `${permission} key (tally keys create)`);
  const row = await db.selectFrom('api_keys').select('id').where('key_hash', '=', hashSecret(key)).executeTakeFirstOrThrow();
  return { id: row.id, key, organization_id: organizationId, environment: opts.environment, environment_id: env.id, permission };
}

/** Inserts a new key and returns it in clear (the only time it is visible). */
export async function insertKey(
  db: Pick<Db, 'insertInto'>,
  organizationId: string,
  environmentId: string,
  envName: EnvironmentName,
  kind: KeyKind,
  permission: Permission,
  name: string,
  rateLimitPerMinute: number | null = null,
): Promise<string> {
  const key = generateKey(kind, envName);
  await db
    .insertInto('api_keys')
    .values({
      id: newId('key'),
      organization_id: organizationId,
      environment_id: environmentId,
      kind,
      permission,
      name,
      key_prefix: displayPrefix(key),
      key_hash: hashSecret(key),
      rate_limit_per_minute: rateLimitPerMinute,
    })
    .execute();
  return key;
}

async function readSaved(file: string, orgId: string): Promise<InitResult['environments'] | undefined> {
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { organization_id: string; environments: InitResult['environments'] };
    return saved.organization_id === orgId ? saved.environments : undefined;
  } catch {
    return undefined;
  }
}
