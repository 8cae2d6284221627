import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Client } from './api';
import type { Session } from './session';

export interface Ctx {
  readonly session: Session;
  readonly client: Client;
  readonly canWrite: boolean;
  readonly isAdmin: boolean;
}

export const SessionContext = createContext<Ctx | undefined>(undefined);

/** The signed-in session (screens render only inside one). */
export function useSession(): Ctx {
  const c = useContext(SessionContext);
  if (!c) throw new Error('no session');
  return c;
}
