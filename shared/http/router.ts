import type { Route } from './types.ts';

interface ParamRoute {
  route: Route;
  segments: string[];
}

type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

/**
 * Matches method and path to a route. Static paths are one Map lookup (the event
 * endpoints are static); paths with `:params` are matched segment by segment, static
 * segments winning over parameters.
 */
export class Router {
  readonly #static = new Map<string, Map<string, Route>>();
  readonly #param: ParamRoute[] = [];
  readonly #all: Route[] = [];

  add(route: Route): void {
    const key = `${route.method} ${route.path}`;
    if (this.#all.some((r) => `${r.method} ${r.path}` === key)) throw new Error(`duplicate route ${key}`);
    this.#all.push(route);
    if (!route.path.includes(':')) {
      let byMethod = this.#static.get(route.path);
      if (!byMethod) this.#static.set(route.path, (byMethod = new Map()));
      byMethod.set(route.method, route);
      return;
    }
    this.#param.push({ route, segments: route.path.split('/') });
    // Most specific first: more static segments earlier.
    this.#param.sort((a, b) => staticCount(b.segments) - staticCount(a.segments));
  }

  routes(): readonly Route[] {
    return this.#all;
  }

  /** A HEAD request is answered as its GET (the transport leaves the body out). */
  match(method: string, path: string): Match {
    if (method === 'HEAD') {
      const asGet = this.match('GET', path);
      if (asGet.kind === 'found') return asGet;
    }
    const normalized = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const byMethod = this.#static.get(normalized);
    const allowed = new Set<string>();
    if (byMethod) {
      const r = byMethod.get(method);
      if (r) return { kind: 'found', route: r, params: {} };
      for (const m of byMethod.keys()) allowed.add(m);
    }
    const parts = normalized.split('/');
    for (const pr of this.#param) {
      const params = matchSegments(pr.segments, parts);
      if (!params) continue;
      if (pr.route.method === method) return { kind: 'found', route: pr.route, params };
      allowed.add(pr.route.method);
    }
    return allowed.size > 0 ? { kind: 'method_not_allowed', allowed: [...allowed] } : { kind: 'not_found' };
  }
}

function staticCount(segments: string[]): number {
  return segments.filter((s) => !s.startsWith(':')).length;
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(':')) {
      if (v === '') return undefined;
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        return undefined;
      }
    } else if (p !== v) return undefined;
  }
  return params;
}
