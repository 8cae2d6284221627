/** What a signed-in key may do (probed at sign-in: the API has no "who am I"). */
export type Permission = 'read-only' | 'read-write' | 'admin';

export interface Session {
  /** A name the person gave the environment (e.g. "production"). */
  readonly label: string;
  readonly key: string;
  readonly permission: Permission;
}

const STORE = 'tally.console.sessions';
const CURRENT = 'tally.console.current';

/**
 * Sessions live in sessionStorage only: gone when the tab closes, never in a URL, a
 * cookie or localStorage.
 */
export function loadSessions(): { sessions: Session[]; current: number } {
  try {
    const sessions = JSON.parse(sessionStorage.getItem(STORE) ?? '[]') as Session[];
    const current = Number(sessionStorage.getItem(CURRENT) ?? '0');
    return { sessions, current: current < sessions.length ? current : 0 };
  } catch {
    return { sessions: [], current: 0 };
  }
}

export function saveSessions(sessions: readonly Session[], current: number): void {
  if (sessions.length === 0) {
    sessionStorage.removeItem(STORE);
    sessionStorage.removeItem(CURRENT);
    return;
  }
  sessionStorage.setItem(STORE, JSON.stringify(sessions));
  sessionStorage.setItem(CURRENT, String(current));
}

/**
 * The name an environment is shown by: the one typed, else `environment N` (its place among
 * the signed-in ones): never any part of its key.
 */
export function environmentLabel(typed: string, place: number): string {
  return typed.trim() || `environment ${place}`;
}
