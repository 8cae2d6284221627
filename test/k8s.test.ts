/**
 * infra/k8s (the scale-out deployment on Kubernetes) cannot be applied here (no cluster):
 * every object is validated against Kubernetes' OpenAPI schemas with `kubernetes-models`
 * (schemas of the API compiled into validators, the same checks as the API server's
 * schema validation; no network), and checked against Tally itself: one Deployment per
 * role of app/start.ts, the environment each one gets accepted by the role's real
 * configuration parser, the ports and probes the process serves, and the services
 * reaching the right pods.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseRoleConfigs, ROLES, type Role } from '../app/start.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(repo, 'infra/k8s');
const read = (f: string) => readFileSync(path.join(repo, f), 'utf8');

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [k: string]: any;
}
const kustomization = parse(read('infra/k8s/kustomization.yaml')) as { resources: string[] };
const objects: Obj[] = kustomization.resources.flatMap((f) => parseAllDocuments(read(`infra/k8s/${f}`)).map((d) => d.toJS() as Obj));
const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
const byName = (kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in infra/k8s`);
  return found;
};
const deployment = (role: Role) => byName('Deployment', `tally-${role}`);
const container = (role: Role) => deployment(role).spec.template.spec.containers[0];

/** The environment a role's container starts with: its ConfigMaps and Secrets (envFrom), then its own env. */
function environment(role: Role): Record<string, string> {
  const c = container(role);
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, byName('ConfigMap', from.configMapRef.name).data);
    if (from.secretRef) Object.assign(env, byName('Secret', from.secretRef.name).stringData);
  }
  for (const e of c.env ?? []) env[e.name] = e.value;
  return env;
}

type Model = new (data: unknown) => { validate(): void };
const require = createRequire(import.meta.url);
/** The kubernetes-models class of an object (`apps/v1` Deployment: kubernetes-models/apps/v1). */
function model(o: Obj): Model {
  let mod: Record<string, Model>;
  try {
    mod = require(`kubernetes-models/${o.apiVersion}`) as Record<string, Model>;
  } catch (err) {
    throw new Error(`kubernetes-models (a devDependency: npm install -D kubernetes-models@4.5.1) has no ${o.apiVersion}: ${(err as Error).message}`);
  }
  const cls = mod[o.kind];
  if (!cls) throw new Error(`kubernetes-models has no ${o.apiVersion} ${o.kind}`);
  return cls;
}

describe('infra/k8s', () => {
  it('lists every manifest file in kustomization.yaml, and each exists', () => {
    const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
  });

  it("validates every object against Kubernetes' schemas (kubernetes-models)", () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const o of objects) {
      const Cls = model(o);
      expect(() => new Cls(o).validate(), `${o.kind} ${o.metadata?.name}`).not.toThrow();
    }
  });

  it('catches a broken object (the validation is not a no-op)', () => {
    const d = structuredClone(deployment('ingest'));
    d.spec.replicas = 'two';
    delete d.spec.template.spec.containers;
    const Cls = model(d);
    expect(() => new Cls(d).validate()).toThrow(/replicas must be integer|must have required property 'containers'/);
  });

  it("runs each role of app/start.ts in a Deployment of its own, with the image's `start --roles <role>`", () => {
    expect(ofKind('Deployment').map((d) => d.metadata.name).sort()).toEqual(ROLES.map((r) => `tally-${r}`).sort());
    const images = new Set(ROLES.map((r) => container(r).image));
    expect(images.size).toBe(1);
    for (const role of ROLES) {
      const d = deployment(role);
      expect(container(role).args, role).toEqual(['start', '--roles', role]);
      // The selector picks this Deployment's pods and no other's.
      expect(d.spec.template.metadata.labels, role).toMatchObject(d.spec.selector.matchLabels);
      for (const other of ROLES.filter((r) => r !== role)) {
        expect(deployment(other).spec.template.metadata.labels, `${role} selects ${other}`).not.toMatchObject(d.spec.selector.matchLabels);
      }
    }
  });

  it("gives each role an environment its configuration parser accepts: Postgres, NATS and a ClickHouse server, no chDB", () => {
    for (const role of ROLES) {
      const env = environment(role);
      const config = parseRoleConfigs(new Set([role]), env);
      expect(config[role], role).toBeDefined();
      expect(config.common.databaseUrl, role).toMatch(/^postgres:\/\//);
      expect(config.common.natsUrl, role).toMatch(/^nats:\/\//);
      expect(config.common.clickhouse.url, role).toMatch(/^https?:\/\//);
      expect(config.common.clickhouse.password, role).not.toBe('');
      // The data directory (credentials.json of the first start) is a mounted volume.
      expect(container(role).volumeMounts.map((m: { mountPath: string }) => m.mountPath), role).toContain(env.TALLY_DATA_DIR);
    }
    // The events stream's copies fit the NATS servers listed.
    const env = environment('ingest');
    expect(env.NATS_URL!.split(',').length).toBeGreaterThanOrEqual(Number(env.TALLY_STREAM_REPLICAS));
  });

  it('sets only variables the docs document (docs/configuration.md)', () => {
    // Every variable named in a row of the configuration table (CLICKHOUSE_USER is in CLICKHOUSE_URL's row).
    const rows = read('docs/configuration.md').split('\n').filter((l) => l.startsWith('| `'));
    const documented = new Set(rows.flatMap((l) => [...l.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
    for (const role of ROLES) {
      for (const name of Object.keys(environment(role))) expect(documented, `${name} (${role})`).toContain(name);
    }
  });

  it("gives the sink docker-compose's larger initial old generation, every role the larger young generation", () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, { environment: Record<string, string> }> };
    for (const role of ROLES) expect(environment(role).NODE_OPTIONS, role).toBe(compose.services[role]!.environment.NODE_OPTIONS);
  });

  it('opens the ports the process listens on (TALLY_HTTP_PORT; OTLP/gRPC on ingest), probes /readyz and /healthz, and routes each Service to them', () => {
    const start = read('app/start.ts');
    expect(start).toContain("path: '/readyz'");
    expect(start).toContain("path: '/healthz'");
    for (const role of ROLES) {
      const c = container(role);
      const ports = Object.fromEntries(c.ports.map((p: { name: string; containerPort: number }) => [p.name, p.containerPort]));
      const config = parseRoleConfigs(new Set([role]), environment(role));
      expect(ports.http, role).toBe(config.common.httpPort);
      if (role === 'ingest') expect(ports['otlp-grpc']).toBe(config.ingest!.ingest.otlpGrpcPort);
      else expect(Object.keys(ports), role).toEqual(['http']);
      expect(c.readinessProbe.httpGet, role).toEqual({ path: '/readyz', port: 'http' });
      expect(c.livenessProbe.httpGet, role).toEqual({ path: '/healthz', port: 'http' });
    }
    // Ingest and api are reached through Services; each targets a named port of its pods.
    expect(ofKind('Service').map((s) => s.metadata.name).sort()).toEqual(['tally-api', 'tally-ingest']);
    for (const role of ['ingest', 'api'] as const) {
      const svc = byName('Service', `tally-${role}`);
      expect(svc.spec.selector).toEqual(deployment(role).spec.selector.matchLabels);
      const names = container(role).ports.map((p: { name: string }) => p.name);
      expect(svc.spec.ports.map((p: { targetPort: string }) => p.targetPort).sort()).toEqual([...names].sort());
    }
    for (const pdb of ofKind('PodDisruptionBudget')) {
      expect(ofKind('Deployment').some((d) => JSON.stringify(d.spec.selector) === JSON.stringify(pdb.spec.selector)), pdb.metadata.name).toBe(true);
    }
  });

  it('runs Tally as a non-root user without privilege escalation', () => {
    for (const role of ROLES) {
      const pod = deployment(role).spec.template.spec;
      expect(pod.securityContext.runAsNonRoot, role).toBe(true);
      expect(container(role).securityContext, role).toMatchObject({ allowPrivilegeEscalation: false });
    }
  });
});
