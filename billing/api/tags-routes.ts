import { Type } from '@sinclair/typebox';
import { MAX_TYPE_LENGTH } from '../../shared/events/limits.ts';
import { listTaggableItems } from '../catalog/taggable-items.ts';
import { listTags, MAX_TAGS_PER_KIND, replaceTags, TAG_FIELDS, type TagKind } from '../catalog/tags.ts';
import { listB, pageB, PageQueryB } from './paging.ts';
import { ok, type ApiDeps, type Endpoint } from './route.ts';
import { NullableText } from './schemas.ts';
import { body, query } from './validate.ts';
import { listOfB, TaggableItem, TaggedActions, TaggedOutcomes } from './response-schemas.ts';

/** An action_type / outcome_type as ingest accepts it (1 to 128 characters). */
const TagName = Type.String({ minLength: 1, maxLength: MAX_TYPE_LENGTH, errorMessage: `must be a non-empty string of at most ${MAX_TYPE_LENGTH} characters` });
const tagList = (what: string) => ({ maxItems: MAX_TAGS_PER_KIND, errorMessage: `must be an array of at most ${MAX_TAGS_PER_KIND} ${what}` });

const TaggedActionsPut = Type.Object({
  tagged_actions: Type.Array(Type.Object({ action_name: TagName, description: Type.Optional(NullableText) }), tagList('{action_name, description}')),
});
const TaggedOutcomesPut = Type.Object({
  tagged_outcomes: Type.Array(Type.Object({ outcome_name: TagName, description: Type.Optional(NullableText) }), tagList('{outcome_name, description}')),
});
const TaggableQuery = Type.Object({
  kind: Type.Optional(Type.Union([Type.Literal('action'), Type.Literal('outcome')], { errorMessage: 'must be action or outcome' })),
});

/** The body GET answers and PUT takes: `{total, tagged_actions}` / `{total, tagged_outcomes}`. */
function setBody(kind: TagKind, rows: unknown[]) {
  return { total: rows.length, [TAG_FIELDS[kind].list]: rows };
}

/**
 * Tagged actions and outcomes (Family B): each kind is one set per environment that PUT
 * replaces whole and GET returns whole (bounded by {@link MAX_TAGS_PER_KIND}), so what GET
 * answers can be edited and PUT back without paging through it. Taggable items: the
 * action and outcome types seen in this environment's events (ClickHouse).
 */
export function tagEndpoints({ db, ch, chDatabase }: ApiDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/tagged_actions',
      capability: 'read',
      response: TaggedActions,
      summary: 'The tagged actions of this environment (the whole set, by name)',
      handle: async (_req, p) => ok(setBody('action', await listTags(db, p.environmentId, 'action'))),
    },
    {
      method: 'PUT',
      path: '/api/v1/tagged_actions',
      capability: 'write',
      response: TaggedActions,
      summary: 'Replace the set of tagged actions (tagged_actions: [{action_name, description}]; names unique)',
      requestBody: TaggedActionsPut,
      handle: async (req, p) => {
        const b = body(req, TaggedActionsPut);
        const rows = await replaceTags(db, p.environmentId, 'action', b.tagged_actions.map((t) => ({ name: t.action_name, description: t.description })));
        return ok(setBody('action', rows));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/tagged_outcomes',
      capability: 'read',
      response: TaggedOutcomes,
      summary: 'The tagged outcomes of this environment (the whole set, by name)',
      handle: async (_req, p) => ok(setBody('outcome', await listTags(db, p.environmentId, 'outcome'))),
    },
    {
      method: 'PUT',
      path: '/api/v1/tagged_outcomes',
      capability: 'write',
      response: TaggedOutcomes,
      summary: 'Replace the set of tagged outcomes (tagged_outcomes: [{outcome_name, description}]; names unique)',
      requestBody: TaggedOutcomesPut,
      handle: async (req, p) => {
        const b = body(req, TaggedOutcomesPut);
        const rows = await replaceTags(db, p.environmentId, 'outcome', b.tagged_outcomes.map((t) => ({ name: t.outcome_name, description: t.description })));
        return ok(setBody('outcome', rows));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/taggable_items',
      capability: 'read',
      query: [PageQueryB, TaggableQuery],
      response: listOfB('taggable_items', TaggableItem),
      summary: "Action and outcome types seen in this environment's events: count, last seen, tagged (skip/limit; optional kind)",
      handle: async (req, p) => {
        const page = pageB(req);
        const { kind } = query(req, TaggableQuery);
        const { rows, total } = await listTaggableItems(ch, chDatabase, db, p.environmentId, page, kind);
        return ok(listB('taggable_items', rows, total, page));
      },
    },
  ];
}
