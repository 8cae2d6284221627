import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

/**
 * docker-compose.yml, Dockerfile and .dockerignore cannot run here (no Docker engine):
 * this checks by reading them what a user with Docker relies on.
 */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (f: string) => readFileSync(path.join(repo, f), 'utf8');
type Service = { image?: string; environment?: Record<string, string>; ports?: string[]; healthcheck?: { test?: string[]; disable?: boolean }; volumes?: string[]; command?: string[]; profiles?: string[] };
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const tallyServices = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'start');

describe('docker-compose.yml', () => {
  it('gives ClickHouse a user and password, and Tally the same', () => {
    const ch = compose.services.clickhouse!.environment!;
    expect(ch.CLICKHOUSE_USER).toBeTruthy();
    expect(ch.CLICKHOUSE_PASSWORD).toBeTruthy();
    for (const [name, s] of tallyServices) {
      expect(s.environment!.CLICKHOUSE_USER, name).toBe(ch.CLICKHOUSE_USER);
      expect(s.environment!.CLICKHOUSE_PASSWORD, name).toBe(ch.CLICKHOUSE_PASSWORD);
    }
  });

  it('keeps the data directory (credentials.json) in a volume every Tally container and `init` share', () => {
    expect(tallyServices.length).toBe(4);
    for (const [name, s] of [...tallyServices, ['init', compose.services.init!] as const]) {
      const dir = s.environment!.TALLY_DATA_DIR!;
      expect(s.volumes, name).toContain(`tally-data:${dir}`);
    }
    expect(compose.volumes).toHaveProperty('tally-data');
  });

  it('has a health check on every long-running service, pins every image, and does not publish NATS', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.profiles?.includes('tools')) continue;
      expect(s.healthcheck?.test, name).toBeTruthy();
      if (s.image) expect(s.image, name).toMatch(/:\d+(\.\d+)+(-[a-z]+)?$/);
    }
    expect(compose.services.nats!.ports).toBeUndefined();
    const ch = compose.services.clickhouse!.image!.split(':')[1]!;
    const [major, minor] = ch.split('.').map(Number) as [number, number];
    expect(minor === 3 || minor === 8, `ClickHouse ${ch}: an LTS release (x.3 or x.8)`).toBe(true);
    expect(major).toBeGreaterThanOrEqual(26);
  });

  it('gives every Tally service the same environment, the sink a larger initial old generation (bench/nats-receive.ts COMPARE_FLAGS)', () => {
    const { ingest, sink } = compose.services;
    for (const [name, s] of tallyServices) {
      expect({ ...s.environment, NODE_OPTIONS: undefined }, name).toEqual({ ...ingest!.environment, NODE_OPTIONS: undefined });
    }
    expect(ingest!.environment!.NODE_OPTIONS).toBe('--max-semi-space-size=32');
    expect(sink!.environment!.NODE_OPTIONS).toBe('--max-semi-space-size=32 --initial-old-space-size=128');
  });

  it('runs Tally with two malloc arenas however it is started: npm start and the image (docs/configuration.md, MALLOC_ARENA_MAX)', () => {
    expect(JSON.parse(read('package.json')).scripts.start).toMatch(/^exec env MALLOC_ARENA_MAX=2 node /);
    expect(read('infra/Dockerfile')).toMatch(/^ENV MALLOC_ARENA_MAX=2$/m);
    expect(read('docs/configuration.md')).toMatch(/\| `MALLOC_ARENA_MAX` \| `2`/);
  });

  it('publishes ingest on 8080 (OTLP/gRPC on 4317) and the API on 8081, as the README says', () => {
    expect(compose.services.ingest!.ports).toEqual(['8080:8080', '4317:4317']);
    expect(compose.services.api!.ports).toEqual(['8081:8080']);
    expect(read('README.md')).toMatch(/8081/);
  });
});

describe('infra/Dockerfile and .dockerignore', () => {
  const dockerfile = read('infra/Dockerfile');
  it('runs as a non-root user with a health check, keeping optional packages (esbuild, chDB)', () => {
    expect(dockerfile).toMatch(/^USER (?!root)\w+/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(dockerfile).not.toMatch(/--omit=optional/);
    expect(dockerfile).toMatch(/^FROM node:\d+\.\d+/m);
  });
  it('never copies node_modules, data with plaintext keys, or the git history into an image', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim());
    for (const p of ['node_modules', '.data', '.git']) expect(ignored).toContain(p);
  });
});
