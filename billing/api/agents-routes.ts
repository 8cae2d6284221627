import { AppError } from '../../shared/errors.ts';
import {
  agentInstanceView,
  agentView,
  createAgentInstance,
  deleteAgentInstance,
  findAgentBySecret,
  findAgentInstance,
  listAgentInstances,
  refreshAgentSecret,
  updateAgentInstance,
  type AgentInstancePatch,
} from '../catalog/agent-instances.ts';
import { createAgentType, deleteAgentType, getAgentType, listAgentTypes, updateAgentType } from '../catalog/agent-types.ts';
import { requireContactOfAccount } from '../catalog/contacts.ts';
import { guarded, notFound } from '../../shared/db/db-errors.ts';
import { requireRef } from '../catalog/refs.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { listA, listB, pageA, pageB, PageQueryA, PageQueryB } from './paging.ts';
import { created, deleted, ok, type ApiDeps, type Endpoint } from './route.ts';
import { AgentCreate, AgentInstanceCreate, AgentInstanceQuery, AgentInstanceUpdate, AgentTypeCreate, AgentTypeUpdate, ValidateSecret } from './schemas.ts';
import { body, query } from './validate.ts';
import { Agent, AgentInstance, AgentInstanceInfo, AgentInstanceWithSecret, AgentType, AgentWithSecret, Deleted, listOfA, listOfB, SecretValidation } from './response-schemas.ts';

interface Refs {
  agent_type_id?: string | null;
  account_id?: string | null;
  contact_id?: string | null;
}

/** Checks the references of an instance body; a contact must belong to the instance's account. */
async function checkRefs(db: Db, env: string, refs: Refs, currentAccountId: string | null = null): Promise<void> {
  if (refs.agent_type_id) await requireRef(db, 'agent_types', env, 'agent_type_id', refs.agent_type_id);
  if (refs.account_id) await requireRef(db, 'accounts', env, 'account_id', refs.account_id);
  if (refs.contact_id) await requireContactOfAccount(db, env, refs.contact_id, refs.account_id === undefined ? currentAccountId : refs.account_id);
}

/** Agent types (Family B), agent instances (Family B) and agents (Family A): one model. */
export function agentEndpoints({ db, bus }: ApiDeps): Endpoint[] {
  return [
    // ---- Family A agents
    {
      method: 'GET',
      path: '/v1/agents',
      capability: 'read',
      query: [PageQueryA, AgentInstanceQuery],
      response: listOfA('agents', Agent),
      summary: 'List agents (limit default 20, max 100; offset; filter account_id)',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listAgentInstances(db, p.environmentId, page, query(req, AgentInstanceQuery).account_id);
        return ok(listA('agents', rows.map(agentView), total, page));
      },
    },
    {
      method: 'GET',
      path: '/v1/agents/:agent_id',
      capability: 'read',
      response: Agent,
      summary: 'One agent',
      handle: async (req, p) => {
        const row = await findAgentInstance(db, p.environmentId, req.params.agent_id!);
        if (!row) throw notFound('agent', req.params.agent_id!);
        return ok(agentView(row));
      },
    },
    {
      method: 'POST',
      path: '/v1/agents',
      capability: 'write',
      status: 201,
      response: AgentWithSecret,
      summary: 'Create an agent (name, type, description); the secret is returned once',
      requestBody: AgentCreate,
      handle: async (req, p) => {
        const b = body(req, AgentCreate);
        await checkRefs(db, p.environmentId, b);
        const made = await createAgentInstance(db, { environmentId: p.environmentId, name: b.name, description: b.description ?? null, framework: b.type, accountId: b.account_id ?? null, agentTypeId: b.agent_type_id ?? null });
        const row = (await findAgentInstance(db, p.environmentId, made.id))!;
        return created({ ...agentView(row), secret: made.secret });
      },
    },
    // ---- Family B agent types
    {
      method: 'GET',
      path: '/api/v1/agent_type/all',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('agent_types', AgentType),
      summary: 'List agent types (skip/limit)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listAgentTypes(db, p.environmentId, page);
        return ok(listB('agent_types', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/agent_type/create',
      capability: 'write',
      status: 201,
      response: AgentType,
      summary: 'Create an agent type (name unique per environment)',
      requestBody: AgentTypeCreate,
      handle: async (req, p) => created(await createAgentType(db, p.environmentId, body(req, AgentTypeCreate))),
    },
    {
      method: 'GET',
      path: '/api/v1/agent_type/:agent_type_id',
      capability: 'read',
      response: AgentType,
      summary: 'One agent type',
      handle: async (req, p) => ok(await getAgentType(db, p.environmentId, req.params.agent_type_id!)),
    },
    {
      method: 'PUT',
      path: '/api/v1/agent_type/:agent_type_id',
      capability: 'write',
      response: AgentType,
      summary: 'Update an agent type',
      requestBody: AgentTypeUpdate,
      handle: async (req, p) => ok(await updateAgentType(db, p.environmentId, req.params.agent_type_id!, body(req, AgentTypeUpdate))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/agent_type/:agent_type_id',
      capability: 'write',
      response: Deleted,
      summary: 'Delete an agent type (refused while instances or products reference it)',
      handle: async (req, p) => {
        await deleteAgentType(db, p.environmentId, req.params.agent_type_id!);
        return deleted(req.params.agent_type_id!);
      },
    },
    // ---- Family B agent instances
    {
      method: 'GET',
      path: '/api/v1/agent_instance/all',
      capability: 'read',
      query: [PageQueryB, AgentInstanceQuery],
      response: listOfB('agent_instances', AgentInstance),
      summary: 'List agent instances (skip/limit; filter account_id)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listAgentInstances(db, p.environmentId, page, query(req, AgentInstanceQuery).account_id);
        return ok(listB('agent_instances', rows.map(agentInstanceView), total, page));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/agent_instance/create',
      capability: 'write',
      status: 201,
      response: AgentInstanceWithSecret,
      summary: 'Create an agent instance; the secret is returned once',
      requestBody: AgentInstanceCreate,
      handle: async (req, p) => {
        const b = body(req, AgentInstanceCreate);
        await checkRefs(db, p.environmentId, b);
        const made = await createAgentInstance(db, {
          environmentId: p.environmentId,
          name: b.name,
          description: b.description ?? null,
          agentTypeId: b.agent_type_id,
          accountId: b.account_id ?? null,
          contactId: b.contact_id ?? null,
          framework: b.type ?? null,
        });
        const row = (await findAgentInstance(db, p.environmentId, made.id))!;
        return created({ ...agentInstanceView(row), secret: made.secret });
      },
    },
    {
      method: 'POST',
      path: '/api/v1/agent_instance/validate-secret',
      capability: 'validate_secret',
      response: SecretValidation,
      summary: "Validate an instance secret; returns the instance's metadata (used by the SDK)",
      requestBody: ValidateSecret,
      handle: async (req, p) => {
        const { secret } = body(req, ValidateSecret);
        const row = await findAgentBySecret(db, p.environmentId, secret);
        if (!row) throw new AppError('unauthorized', 'invalid agent secret');
        return ok({ valid: true, agent_instance: agentInstanceView(row) });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/agent_instance/info',
      capability: 'agent_self',
      response: AgentInstanceInfo,
      errors: [404],
      summary: "The calling agent instance (X-Agent-Secret): its metadata, organization and environment (value-python's initialize)",
      handle: async (_req, p) => {
        const row = await findAgentInstance(db, p.environmentId, p.agentInstanceId!);
        if (!row) throw notFound('agent instance', p.agentInstanceId!);
        // value-python reads id, name, organization_id and workspace_id (an environment here).
        return ok({ ...agentInstanceView(row), organization_id: p.organizationId, environment_id: p.environmentId, workspace_id: p.environmentId });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/agent_instance/:agent_instance_id',
      capability: 'read',
      response: AgentInstance,
      summary: 'One agent instance',
      handle: async (req, p) => {
        const row = await findAgentInstance(db, p.environmentId, req.params.agent_instance_id!);
        if (!row) throw notFound('agent instance', req.params.agent_instance_id!);
        return ok(agentInstanceView(row));
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/agent_instance/:agent_instance_id',
      capability: 'write',
      response: AgentInstance,
      summary: 'Update an agent instance (name, description, references, is_active)',
      requestBody: AgentInstanceUpdate,
      handle: async (req, p) => {
        const id = req.params.agent_instance_id!;
        const b = body(req, AgentInstanceUpdate);
        const current = await findAgentInstance(db, p.environmentId, id);
        if (!current) throw notFound('agent instance', id);
        await checkRefs(db, p.environmentId, b, current.account_id);
        const { type, ...rest } = b;
        const patch: AgentInstancePatch = { ...rest, ...(type !== undefined ? { framework: type } : {}) };
        const row = await updateAgentInstance(db, bus, p.environmentId, id, patch);
        if (!row) throw notFound('agent instance', id);
        return ok(agentInstanceView(row));
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/agent_instance/:agent_instance_id',
      capability: 'write',
      response: Deleted,
      summary: 'Delete an agent instance (refused while a subscription includes it)',
      handle: async (req, p) => {
        const id = req.params.agent_instance_id!;
        const gone = await guarded(`agent instance ${id}`, () => deleteAgentInstance(db, bus, p.environmentId, id));
        if (!gone) throw notFound('agent instance', id);
        return deleted(id);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/agent_instance/:agent_instance_id/refresh',
      capability: 'write',
      response: AgentInstanceWithSecret,
      summary: 'Issue a new secret; the old one stops working at once',
      handle: async (req, p) => {
        const id = req.params.agent_instance_id!;
        const secret = await refreshAgentSecret(db, bus, p.environmentId, id);
        if (!secret) throw notFound('agent instance', id);
        const row = (await findAgentInstance(db, p.environmentId, id))!;
        return ok({ ...agentInstanceView(row), secret });
      },
    },
  ];
}
